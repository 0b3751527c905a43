/**
 * Redis-specific checks the shared contract cannot express: the REST gateway fixture speaks the
 * documented Upstash protocol (so the store is tested against the real client behaviour), keys
 * carry server-side expiry, scripts survive a SCRIPT FLUSH, and purges leave no chunks behind.
 */
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import { parseConfig } from "../../lib/config.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { openStore } from "../../lib/store/open.ts";
import { openRedisStack, storeClock } from "../../testing/store_backends.ts";

function text(reply: unknown): string {
  return new TextDecoder().decode(reply as Uint8Array);
}

async function keyNames(reply: Promise<unknown>): Promise<string[]> {
  return ((await reply) as Uint8Array[]).map(text);
}

async function post(url: string, token: string, body: unknown, headers: HeadersInit = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: await response.json(),
  };
}

Deno.test("the gateway answers the Upstash REST protocol: results, errors, auth, base64", async () => {
  await using stack = await openRedisStack(storeClock());
  const { url, token } = stack.gateway;
  const base64 = { "Upstash-Encoding": "base64" };

  assert.deepEqual(await post(url, token, ["SET", "k", "bär"]), {
    status: 200,
    type: "application/json",
    body: { result: "OK" },
  });
  assert.deepEqual((await post(url, token, ["GET", "k"])).body, { result: "bär" });
  assert.deepEqual((await post(url, token, ["GET", "k"], base64)).body, { result: "YsOkcg==" });
  assert.deepEqual((await post(url, token, ["SET", "k", "x"], base64)).body, { result: "OK" });
  assert.deepEqual((await post(url, token, ["INCR", "n"], base64)).body, { result: 1 });
  assert.deepEqual((await post(url, token, ["GET", "nothing"], base64)).body, { result: null });

  const wrongType = await post(url, token, ["HGET", "k", "f"]);
  assert.equal(wrongType.status, 400);
  assert.match(wrongType.body.error, /^WRONGTYPE/);
  assert.deepEqual(await post(url, "wrong", ["GET", "k"]), {
    status: 401,
    type: "application/json",
    body: { error: "Unauthorized" },
  });
  const get = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  await get.body?.cancel();
  assert.equal(get.status, 405);
  assert.equal((await post(url, token, "not json")).status, 400);
  assert.deepEqual(await post(url, token, ["SET", "big", "x".repeat(3 * 1024 * 1024)]), {
    status: 400,
    type: "application/json",
    body: { error: "ERR max request size exceeded" },
  });

  const pipeline = await post(`${url}/pipeline`, token, [["SET", "p", "1"], ["HGET", "p", "f"], [
    "INCR",
    "p",
  ]]);
  assert.equal(pipeline.status, 200);
  assert.deepEqual(pipeline.body[0], { result: "OK" });
  assert.match(pipeline.body[1].error, /^WRONGTYPE/);
  assert.deepEqual(pipeline.body[2], { result: 2 });

  const tx = await post(`${url}/multi-exec`, token, [["SET", "t", "a"], ["GET", "t"]], base64);
  assert.deepEqual(tx.body, [{ result: "OK" }, { result: "YQ==" }]);
  const discarded = await post(`${url}/multi-exec`, token, [["SET", "t", "b"], ["NOSUCHCMD"]]);
  assert.equal(discarded.status, 400);
  assert.match(discarded.body.error, /^EXECABORT/);
  assert.equal(
    text(await stack.gateway.redis("GET", "t")),
    "a",
    "a discarded transaction ran nothing",
  );
});

Deno.test("the default @upstash/redis client (base64, auto-pipelining) works through the gateway", async () => {
  await using stack = await openRedisStack(storeClock());
  const redis = new Redis({
    url: stack.gateway.url,
    token: stack.gateway.token,
    enableTelemetry: false,
  });
  await redis.set("json", { text: "héllo ✓", n: 2 });
  assert.deepEqual(await redis.get("json"), { text: "héllo ✓", n: 2 });
  const [a, b] = await Promise.all([redis.incr("counter"), redis.incr("counter")]);
  assert.deepEqual([a, b].sort(), [1, 2]);
  assert.deepEqual(await redis.multi().set("m", "v").get("m").exec(), ["OK", "v"]);
  assert.deepEqual(await redis.eval("return {1, ARGV[1]}", [], ["two"]), [1, "two"]);
});

Deno.test("every key the Upstash store writes carries a server-side expiry", async () => {
  const clock = storeClock();
  await using stack = await openRedisStack(clock);
  const { store, gateway } = stack;
  await store.setValue(["post", "1"], { ok: true }, 60_000);
  const bytes = new Uint8Array(2.2 * 1024 * 1024).fill(1);
  await store.setBlob(["capture", "u", "desktop"], { bytes, meta: {} }, 60_000);
  await store.setBlob(["capture", "u", "desktop"], { bytes, meta: { v: 2 } }, 60_000);
  await store.hitWindow(["rate", "198.51.100.7"], 20, 60_000);

  const names = await keyNames(gateway.redis("KEYS", "*"));
  // 1 value, 2 x 3 chunks, 1 head, 3 prefix indexes ("", /capture, /capture/u), 1 window.
  assert.equal(names.length, 12, `keys: ${names.join(", ")}`);
  const retired = [];
  for (const name of names) {
    const pttl = await gateway.redis("PTTL", name) as number;
    assert.ok(pttl > 0, `${name} has no expiry (PTTL ${pttl})`);
    if (name.includes(":c:") && pttl <= 30_000) retired.push(name);
  }
  assert.equal(retired.length, 3, "the replaced version's three chunks only get a grace period");
});

Deno.test("deleteBlobs leaves no heads, chunks or index entries behind", async () => {
  await using stack = await openRedisStack(storeClock());
  const { store, gateway } = stack;
  const bytes = new Uint8Array(1.5 * 1024 * 1024).fill(2);
  await store.setBlob(["capture", "u", "desktop"], { bytes, meta: {} }, 60_000);
  await store.setBlob(["capture", "u", "mobile"], { bytes, meta: {} }, 60_000);
  assert.equal(await store.deleteBlobs(["capture"]), 2);
  const left = await keyNames(gateway.redis("KEYS", "*"));
  assert.deepEqual(left.filter((n) => /:(b|c):/.test(n)), []);
  for (const index of left.filter((n) => n.includes(":i:"))) {
    assert.equal(await gateway.redis("ZCARD", index), 0, index);
  }
});

Deno.test("hitWindow reloads its Lua script after SCRIPT FLUSH (NOSCRIPT, then EVAL)", async () => {
  await using stack = await openRedisStack(storeClock());
  const { store, gateway } = stack;
  assert.equal((await store.hitWindow(["rate", "x"], 2, 60_000)).remaining, 1);
  await gateway.redis("SCRIPT", "FLUSH");
  gateway.commandLog.length = 0;
  assert.equal((await store.hitWindow(["rate", "x"], 2, 60_000)).remaining, 0);
  assert.deepEqual(gateway.commandLog, ["EVALSHA", "EVAL"]);
  gateway.commandLog.length = 0;
  assert.equal((await store.hitWindow(["rate", "x"], 2, 60_000)).allowed, false);
  assert.deepEqual(gateway.commandLog, ["EVALSHA"]);
});

Deno.test("openStore picks Upstash Redis when both UPSTASH_REDIS_REST_* are set, else Deno KV", async () => {
  const clock = storeClock();
  await using stack = await openRedisStack(clock);
  const log = createMemoryLogger();
  const env = {
    UPSTASH_REDIS_REST_URL: stack.gateway.url,
    UPSTASH_REDIS_REST_TOKEN: stack.gateway.token,
  };
  const shared = await openStore(parseConfig(env), clock, log);
  assert.equal(shared.kind, "upstash-redis");
  await shared.setValue(["post", "1"], "via env", 60_000);
  assert.equal(await stack.store.getValue(["post", "1"]), "via env");
  await shared.close();

  const local = await openStore(parseConfig({ KV_PATH: ":memory:" }), clock, log);
  assert.equal(local.kind, "deno-kv");
  await local.close();
});
