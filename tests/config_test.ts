import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../lib/config.ts";

Deno.test("config defaults are the ones the README's Configuration table states", () => {
  const config = parseConfig({});
  assert.equal(config.PORT, 8000);
  assert.equal(config.HOST, "0.0.0.0");
  assert.equal(config.CACHE_TTL_SECONDS, 172800);
  assert.equal(config.RATE_LIMIT_PER_MINUTE, 20);
  assert.equal(config.TRUST_PROXY_HOPS, 0);
  assert.equal(config.CAPTURE_TIMEOUT_MS, 15000);
  assert.equal(config.ALLOW_PRIVATE_NETWORK, false);
  assert.equal(config.MAX_UPLOAD_BYTES, 26214400);
  assert.equal(config.LOG_LEVEL, "info");
  assert.equal(config.PUBLIC_BASE_URL, undefined);
  assert.equal(config.BROWSER_WS_ENDPOINT, undefined);
});

Deno.test("config parses typed values and lists of endpoints", () => {
  const config = parseConfig({
    PORT: "9001",
    PUBLIC_BASE_URL: "https://shots.example/",
    ALLOW_PRIVATE_NETWORK: "true",
    BROWSER_WS_ENDPOINT: "ws://10.0.0.5:3000/chrome, wss://fleet.example/cdp",
    LOG_LEVEL: "debug",
    KV_PATH: ":memory:",
  });
  assert.equal(config.PORT, 9001);
  assert.equal(config.PUBLIC_BASE_URL, "https://shots.example");
  assert.equal(config.ALLOW_PRIVATE_NETWORK, true);
  assert.deepEqual(config.BROWSER_WS_ENDPOINT, [
    "ws://10.0.0.5:3000/chrome",
    "wss://fleet.example/cdp",
  ]);
  assert.equal(config.KV_PATH, ":memory:");
});

Deno.test("config treats empty strings as unset", () => {
  assert.equal(parseConfig({ PORT: "", LOG_LEVEL: "" }).PORT, 8000);
});

Deno.test("a malformed variable fails start-up with its name in the message", () => {
  const cases: Record<string, string> = {
    PORT: "eighty",
    CACHE_TTL_SECONDS: "-5",
    TRUST_PROXY_HOPS: "1.5",
    ALLOW_PRIVATE_NETWORK: "maybe",
    LOG_LEVEL: "verbose",
    PUBLIC_BASE_URL: "ftp://nope",
    BROWSER_WS_ENDPOINT: "http://not-a-websocket",
    MAX_CONCURRENT_CAPTURES: "0",
  };
  for (const [name, value] of Object.entries(cases)) {
    assert.throws(
      () => parseConfig({ [name]: value }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(`${name}=`),
      name,
    );
  }
});

Deno.test("Upstash variables must be set together", () => {
  assert.throws(
    () => parseConfig({ UPSTASH_REDIS_REST_URL: "https://redis.example" }),
    /UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN/,
  );
  const both = parseConfig({
    UPSTASH_REDIS_REST_URL: "https://redis.example",
    UPSTASH_REDIS_REST_TOKEN: "t0ken",
  });
  assert.equal(both.UPSTASH_REDIS_REST_TOKEN, "t0ken");
});

Deno.test("the egress proxy for remote browsers: host:port to listen on, and the fleet's URL", () => {
  assert.equal(parseConfig({}).EGRESS_PROXY_URL, undefined);
  const config = parseConfig({
    EGRESS_PROXY_LISTEN: "0.0.0.0:8118",
    EGRESS_PROXY_URL: "http://shotline-1.internal:8118/",
  });
  assert.deepEqual(config.EGRESS_PROXY_LISTEN, { hostname: "0.0.0.0", port: 8118 });
  assert.equal(config.EGRESS_PROXY_URL, "http://shotline-1.internal:8118");
  const v6 = parseConfig({
    EGRESS_PROXY_LISTEN: "[::]:8118",
    EGRESS_PROXY_URL: "http://[fd00::5]:8118",
  });
  assert.deepEqual(v6.EGRESS_PROXY_LISTEN, { hostname: "::", port: 8118 });
  for (
    const [env, name] of [
      [{ EGRESS_PROXY_LISTEN: "8118", EGRESS_PROXY_URL: "http://a:8118" }, "EGRESS_PROXY_LISTEN"],
      [
        { EGRESS_PROXY_LISTEN: "a:99999", EGRESS_PROXY_URL: "http://a:8118" },
        "EGRESS_PROXY_LISTEN",
      ],
      [{ EGRESS_PROXY_LISTEN: "a:1", EGRESS_PROXY_URL: "http://u:p@a:8118" }, "EGRESS_PROXY_URL"],
      [{ EGRESS_PROXY_LISTEN: "a:1", EGRESS_PROXY_URL: "https://a:8118" }, "EGRESS_PROXY_URL"],
      [{ EGRESS_PROXY_URL: "http://a:8118" }, "EGRESS_PROXY_LISTEN and EGRESS_PROXY_URL"],
    ] as const
  ) {
    assert.throws(() => parseConfig(env), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, new RegExp(name));
      return true;
    });
  }
});
