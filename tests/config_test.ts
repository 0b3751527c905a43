import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../lib/config.ts";

Deno.test("config defaults are the ones the Configuration table (docs/configuration.md) states", () => {
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

Deno.test("CACHE_ADMIN_TOKEN shorter than 32 characters refuses to start, without printing it", () => {
  const short = "tooShortButSecret-31-characters";
  assert.equal(short.length, 31);
  assert.throws(() => parseConfig({ CACHE_ADMIN_TOKEN: short }), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.match(error.message, /CACHE_ADMIN_TOKEN=<hidden, 31 characters>: must be at least 32/);
    assert.equal(error.message.includes(short), false);
    return true;
  });
  const long = `${short}!`;
  assert.equal(parseConfig({ CACHE_ADMIN_TOKEN: long }).CACHE_ADMIN_TOKEN, long);
});

Deno.test("WEBHOOK_SECRET must be whsec_ and base64 of at least 24 bytes, and is never printed", () => {
  assert.equal(parseConfig({}).WEBHOOK_SECRET, undefined);
  const good = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  assert.equal(parseConfig({ WEBHOOK_SECRET: good }).WEBHOOK_SECRET, good);
  const bad = [
    "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", // no prefix
    `whsec_${new Uint8Array(23).fill(7).toBase64()}`, // 23 bytes
    "whsec_MfKQ9r8GKYqrTwjU PD8ILPZIo2LaLaSw", // not base64
  ];
  for (const secret of bad) {
    assert.throws(() => parseConfig({ WEBHOOK_SECRET: secret }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /WEBHOOK_SECRET=<hidden, \d+ characters>: expected whsec_/);
      assert.equal(error.message.includes(secret.slice(6)), false);
      return true;
    });
  }
});

Deno.test("a malformed BROWSER_WS_ENDPOINT is reported without its credentials", () => {
  const endpoint = "http://fleet-user:fleet-pass@fleet.example/chrome?token=fleet-token";
  assert.throws(
    () => parseConfig({ BROWSER_WS_ENDPOINT: `wss://ok.example/cdp,${endpoint}` }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /BROWSER_WS_ENDPOINT=<hidden, \d+ characters>: entry 2 is not/);
      assert.doesNotMatch(error.message, /fleet-(user|pass|token)|fleet\.example/);
      return true;
    },
  );
  // Upstash's URL and token are hidden the same way.
  assert.throws(
    () =>
      parseConfig({ UPSTASH_REDIS_REST_URL: "ftp://u:hunter2@r", UPSTASH_REDIS_REST_TOKEN: "x" }),
    (error: unknown) => error instanceof ConfigError && !error.message.includes("hunter2"),
  );
});

Deno.test("EGRESS_DENY_CIDRS: IPv4 and IPv6 blocks; an invalid one refuses to start naming it", () => {
  assert.deepEqual(parseConfig({}).EGRESS_DENY_CIDRS, []);
  const { EGRESS_DENY_CIDRS } = parseConfig({
    EGRESS_DENY_CIDRS: "203.0.114.0/24, 2a01:4f8::/32,8.8.8.8",
  });
  assert.deepEqual(EGRESS_DENY_CIDRS.map((c) => c.text), [
    "203.0.114.0/24",
    "2a01:4f8::/32",
    "8.8.8.8/32",
  ]);
  for (const bad of ["10.0.0.0/33", "10.0.0/8", "fe80::/129", "example.com/8", "1.2.3.4/8/1"]) {
    assert.throws(
      () => parseConfig({ EGRESS_DENY_CIDRS: `10.0.0.0/8,${bad}` }),
      (error: unknown) =>
        error instanceof ConfigError && error.message.includes("EGRESS_DENY_CIDRS=") &&
        error.message.includes(`not a CIDR: ${bad}`),
      bad,
    );
  }
});

Deno.test("CAPTURE_BYTE_BUDGET defaults to 64 MiB and must be at least 1 MiB", () => {
  assert.equal(parseConfig({}).CAPTURE_BYTE_BUDGET, 64 * 1024 * 1024);
  assert.equal(parseConfig({ CAPTURE_BYTE_BUDGET: "2097152" }).CAPTURE_BYTE_BUDGET, 2097152);
  assert.throws(() => parseConfig({ CAPTURE_BYTE_BUDGET: "1000" }), /CAPTURE_BYTE_BUDGET=/);
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
      [{ EGRESS_PROXY_LISTEN: "a:1", EGRESS_PROXY_URL: "http://a:99999" }, "EGRESS_PROXY_URL"],
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

Deno.test("CAPTURE_LINK_TTL_SECONDS defaults to an hour, from a minute to a week", () => {
  assert.equal(parseConfig({}).CAPTURE_LINK_TTL_SECONDS, 3600);
  assert.equal(parseConfig({ CAPTURE_LINK_TTL_SECONDS: "60" }).CAPTURE_LINK_TTL_SECONDS, 60);
  assert.equal(
    parseConfig({ CAPTURE_LINK_TTL_SECONDS: "604800" }).CAPTURE_LINK_TTL_SECONDS,
    604800,
  );
  for (const bad of ["59", "604801", "1.5", "soon"]) {
    assert.throws(
      () => parseConfig({ CAPTURE_LINK_TTL_SECONDS: bad }),
      /CAPTURE_LINK_TTL_SECONDS=/,
      bad,
    );
  }
});
