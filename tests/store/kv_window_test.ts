/**
 * The Deno KV limiter under a hot key: concurrent hits of one key share commits within the
 * instance, stay exact, and the log stays within one KV value at a high limit.
 */
import assert from "node:assert/strict";
import { createKvStore } from "../../lib/store/deno_kv.ts";
import type { Clock } from "../../lib/clock.ts";

/** A KV handle whose atomic commits are counted. */
function countingKv(kv: Deno.Kv) {
  const counter = { commits: 0 };
  const proxy = new Proxy(kv, {
    get(target, name) {
      if (name !== "atomic") {
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = () => (counter.commits++, commit());
        return op;
      };
    },
  });
  return { kv: proxy, counter };
}

Deno.test("200 concurrent hits of one key are exact and share a handful of commits", async () => {
  const { kv, counter } = countingKv(await Deno.openKv(":memory:"));
  const store = createKvStore(kv, { now: () => 1_000_000 });
  try {
    const verdicts = await Promise.all(
      Array.from({ length: 200 }, () => store.hitWindow(["rate", "hot"], 150, 60_000)),
    );
    assert.equal(verdicts.filter((v) => v.allowed).length, 150);
    assert.deepEqual(
      verdicts.filter((v) => v.allowed).map((v) => v.remaining).sort((a, b) => a - b),
      Array.from({ length: 150 }, (_, i) => i),
    );
    assert.ok(counter.commits <= 4, `one commit per batch, not per hit (${counter.commits})`);
    assert.equal((await store.hitWindow(["rate", "hot"], 150, 60_000)).allowed, false);
  } finally {
    await store.close();
  }
});

Deno.test("two instances on one KV file admit exactly the limit between them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "shotline_kv_window_" });
  const clock: Clock = { now: () => 5_000_000 };
  const a = createKvStore(await Deno.openKv(`${dir}/kv.sqlite3`), clock);
  const b = createKvStore(await Deno.openKv(`${dir}/kv.sqlite3`), clock);
  try {
    const hit = (store: typeof a) => store.hitWindow(["rate", "shared"], 20, 60_000);
    const verdicts = await Promise.all(
      Array.from({ length: 40 }, (_, i) => hit(i % 2 ? a : b)),
    );
    assert.equal(verdicts.filter((v) => v.allowed).length, 20);
  } finally {
    await a.close();
    await b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("at a high limit the log stays one KV value and never admits past the limit", async () => {
  let now = 10_000_000;
  const store = createKvStore(await Deno.openKv(":memory:"), { now: () => now });
  try {
    // 8500 hits at 8500 distinct milliseconds: more pairs than the log keeps uncompacted.
    for (let i = 0; i < 8_500; i++) {
      now += 2;
      const verdict = await store.hitWindow(["rate", "busy"], 9_000, 60_000);
      assert.equal(verdict.allowed, true);
    }
    // Within the window 8500 hits are counted: 500 more pass, then the limit holds.
    let allowed = 0;
    for (let i = 0; i < 501; i++) {
      if ((await store.hitWindow(["rate", "busy"], 9_000, 60_000)).allowed) allowed++;
    }
    assert.equal(allowed, 500);
  } finally {
    await store.close();
  }
});
