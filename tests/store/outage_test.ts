/**
 * The Upstash store when Redis goes away: every call rejects promptly with a
 * StoreUnavailableError (callers turn that into a cache miss or a fail-open limiter), and the
 * same store works again once Redis is back, without being reopened.
 */
import assert from "node:assert/strict";
import type { Store } from "../../lib/store/store.ts";
import { createUpstashStore, StoreUnavailableError } from "../../lib/store/upstash_redis.ts";
import { withTimeout } from "../../lib/timeout.ts";
import { openRedisStack, storeClock } from "../../testing/store_backends.ts";

// Far above the store timeouts used here: a call still pending after this counts as a hang.
const HANG_GUARD_MS = 10_000;

type Call = [name: string, run: (store: Store) => Promise<unknown>];

const EVERY_CALL: Call[] = [
  ["getValue", (s) => s.getValue(["post", "1"])],
  ["setValue", (s) => s.setValue(["post", "1"], { ok: true }, 60_000)],
  ["getBlob", (s) => s.getBlob(["capture", "a", "desktop"])],
  ["setBlob", (s) => s.setBlob(["capture", "a", "desktop"], blob(1.5 * 1024 * 1024), 60_000)],
  ["deleteBlobs", (s) => s.deleteBlobs(["capture", "a"])],
  ["hitWindow", (s) => s.hitWindow(["rate", "198.51.100.1"], 20, 60_000)],
  ["refundWindow", (s) => s.refundWindow(["rate", "198.51.100.1"], { at: 0, id: "x" }, 60_000)],
];

function blob(size: number) {
  return { bytes: new Uint8Array(size).fill(7), meta: { strategy: "test" } };
}

/** Asserts that `work` rejects with a StoreUnavailableError, and does so before the guard. */
async function assertFailsFast(name: string, work: Promise<unknown>, reason?: RegExp) {
  const guarded = withTimeout(work, HANG_GUARD_MS, () => new Error(`${name} still pending`));
  await assert.rejects(guarded, (error: unknown) => {
    assert.ok(error instanceof StoreUnavailableError, `${name}: ${error}`);
    assert.match(error.message, new RegExp(`^upstash-redis ${name} failed: `));
    if (reason) assert.match(error.message, reason);
    return true;
  });
}

async function assertWorks(store: Store) {
  await store.setValue(["post", "1"], { ok: true }, 60_000);
  assert.deepEqual(await store.getValue(["post", "1"]), { ok: true });
  await store.setBlob(["capture", "a", "desktop"], blob(1.5 * 1024 * 1024), 60_000);
  const got = await store.getBlob(["capture", "a", "desktop"]);
  assert.equal(got?.bytes.byteLength, 1.5 * 1024 * 1024);
  assert.equal((await store.hitWindow(["rate", "198.51.100.1"], 20, 60_000)).allowed, true);
  assert.equal(await store.deleteBlobs(["capture", "a"]), 1);
}

/**
 * A second store over the same gateway whose calls give up after a few hundred ms: the outage is
 * judged through it, while the stack's own store (default timeouts) shows the store working,
 * which a loaded machine could not always do in 300 ms.
 */
function impatient(stack: { gateway: { url: string; token: string } }, timeoutMs: number) {
  const { url, token } = stack.gateway;
  return createUpstashStore({
    url,
    token,
    clock: storeClock(),
    timeoutMs,
    bulkTimeoutMs: timeoutMs,
  });
}

Deno.test("upstash store calls fail fast while redis-server is stopped and recover after restart", async () => {
  await using stack = await openRedisStack(storeClock());
  const { store, server } = stack;
  const short = impatient(stack, 1000);
  await assertWorks(store);
  await store.setValue(["kept", "1"], "before the outage", 60_000);

  await server.stop();
  for (const [name, run] of EVERY_CALL) await assertFailsFast(name, run(short));

  await server.restart();
  // Nothing was persisted (like losing a non-durable database): a miss, not an error, on the
  // store that failed too, without reopening it.
  assert.equal(await short.getValue(["kept", "1"]), null);
  await short.close();
  await assertWorks(store);
});

Deno.test("upstash store calls time out instead of hanging when the store stops answering", async () => {
  await using stack = await openRedisStack(storeClock());
  const { store, gateway } = stack;
  const short = impatient(stack, 300);
  await assertWorks(store);

  gateway.stall();
  for (const [name, run] of EVERY_CALL) {
    await assertFailsFast(name, run(short), /TimeoutError|aborted|timed out/i);
  }

  gateway.resume();
  assert.equal((await short.hitWindow(["rate", "198.51.100.2"], 20, 60_000)).allowed, true);
  await short.close();
  await assertWorks(store);
});

Deno.test("a wrong token is an error, not a miss", async () => {
  await using stack = await openRedisStack(storeClock());
  const store = createUpstashStore({
    url: stack.gateway.url,
    token: "not-the-token",
    clock: storeClock(),
  });
  await assertFailsFast("getValue", store.getValue(["post", "1"]), /Unauthorized/);
  await assertFailsFast("hitWindow", store.hitWindow(["rate", "x"], 1, 1000), /Unauthorized/);
});
