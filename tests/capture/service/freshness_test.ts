/**
 * The two rules taken out of the screenshot service, on their own: whether a cached capture may
 * answer (maxAge, staleWhileRevalidate) and the order in which the writes of one key land.
 */
import assert from "node:assert/strict";
import { freshnessOf } from "../../../lib/capture/service/freshness.ts";
import { createOrderedWrites } from "../../../lib/capture/service/write_order.ts";

Deno.test("a capture is fresh within maxAge, stale past it only under staleWhileRevalidate", () => {
  assert.deepEqual(freshnessOf(1_000, 5_000, {}), { state: "fresh", ageMs: 4_000 });
  assert.deepEqual(freshnessOf(1_000, 5_000, { maxAgeMs: 4_000 }), {
    state: "fresh",
    ageMs: 4_000,
  });
  assert.deepEqual(freshnessOf(1_000, 5_001, { maxAgeMs: 4_000 }), {
    state: "expired",
    ageMs: 4_001,
  });
  assert.deepEqual(
    freshnessOf(1_000, 5_001, { maxAgeMs: 4_000, staleWhileRevalidate: true }),
    { state: "stale", ageMs: 4_001 },
  );
  // Another instance's clock may run ahead: a capture "from the future" is brand new.
  assert.deepEqual(freshnessOf(9_000, 5_000, { maxAgeMs: 0 }), { state: "fresh", ageMs: 0 });
});

Deno.test("writes of one key land in the order they began, even when the first is slower", async () => {
  const writes = createOrderedWrites();
  const landed: string[] = [];
  const slow = Promise.withResolvers<void>();
  const first = writes.write("k", async () => {
    await slow.promise;
    landed.push("old");
  });
  const second = writes.write("k", () => (landed.push("new"), Promise.resolve()));
  // Another key does not wait for this one.
  await writes.write("other", () => (landed.push("other"), Promise.resolve()));
  assert.deepEqual(landed, ["other"]);
  let settled = false;
  const all = writes.settled().then(() => settled = true);
  slow.resolve();
  await Promise.all([first, second, all]);
  assert.deepEqual(landed, ["other", "old", "new"]);
  assert.equal(settled, true);
});

Deno.test("a failed write does not stop the next write of its key", async () => {
  const writes = createOrderedWrites();
  const landed: string[] = [];
  const failing = writes.write("k", () => Promise.reject(new Error("store down")));
  const next = writes.write("k", () => (landed.push("next"), Promise.resolve()));
  await assert.rejects(failing, /store down/);
  await next;
  assert.deepEqual(landed, ["next"]);
  await writes.settled();
});
