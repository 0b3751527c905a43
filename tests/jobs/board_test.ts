/**
 * The job board on every store backend: one claim at a time, a lapsed claim taken over, a stale
 * run's result ignored, one finish ending the job, tries bounded, cancel, and many runs
 * finishing at once without losing an item.
 */
import assert from "node:assert/strict";
import { createJobBoard, type JobBoard } from "../../lib/jobs/board.ts";
import type { JobState, StoredItemResult } from "../../lib/jobs/types.ts";
import { STORE_BACKENDS, storeClock } from "../../testing/store_backends.ts";

const done = (n: number): StoredItemResult => ({
  ok: true,
  result: { n },
  object: { key: `jobs/x/${n}.png`, contentType: "image/png", bytes: 10 },
});

function newJob(id: string, items: number, now: number): JobState {
  return {
    id,
    status: "queued",
    total: items,
    createdAt: now,
    expiresAt: now + 3_600_000,
    client: "ip:203.0.113.1",
    baseUrl: "http://localhost",
    items: Array.from({ length: items }, () => ({ status: "queued" as const, tries: 0 })),
  };
}

async function claimOf(board: JobBoard, id: string, n: number, maxTries = 3) {
  const outcome = await board.claim(id, n, maxTries);
  assert.ok("claimed" in outcome, JSON.stringify(outcome));
  return outcome.claimed;
}

for (const backend of STORE_BACKENDS) {
  Deno.test(`job board on ${backend.name}`, async (t) => {
    const clock = storeClock();
    await using opened = await backend.open(clock);
    const board = createJobBoard({ store: opened.store, clock });

    await t.step(
      "one live claim; a lapsed one is taken over and the stale run ignored",
      async () => {
        await board.create(newJob("j1", 1, clock.now()), [{ url: "https://example.com" }]);
        assert.deepEqual(await board.requestsOf("j1"), [{ url: "https://example.com" }]);
        const first = await claimOf(board, "j1", 0);
        assert.equal(first.tries, 1);
        assert.equal((await board.get("j1"))!.status, "running");
        assert.deepEqual(await board.claim("j1", 0, 3), { refused: "claimed" });
        assert.equal(await board.renew("j1", 0, first.claim), true);
        // The first run's instance dies: its claim lapses, a redelivery takes the item over.
        clock.advance(60_000);
        const second = await claimOf(board, "j1", 0);
        assert.equal(second.tries, 2);
        assert.equal(await board.renew("j1", 0, first.claim), false);
        const stale = await board.finish("j1", 0, first.claim, done(1));
        assert.equal(stale.applied, false, "the stale run's result does not count");
        const finished = await board.finish("j1", 0, second.claim, done(2));
        assert.equal(finished.applied, true);
        assert.equal(finished.jobFinished, true);
        assert.equal(finished.state!.status, "done");
        assert.deepEqual(await board.resultOf("j1", 0), done(2));
        // Delivered again after it finished: nothing to run, nothing changes.
        assert.deepEqual(await board.claim("j1", 0, 3), { refused: "finished" });
        const again = await board.finish("j1", 0, second.claim, done(3));
        assert.equal(again.applied, false);
        assert.deepEqual(await board.resultOf("j1", 0), done(2));
      },
    );

    await t.step("tries are bounded: the run after the last fails the item", async () => {
      await board.create(newJob("j2", 1, clock.now()), [{}]);
      await claimOf(board, "j2", 0, 2);
      clock.advance(60_000);
      await claimOf(board, "j2", 0, 2);
      clock.advance(60_000);
      const outcome = await board.claim("j2", 0, 2);
      assert.deepEqual(outcome, { exhausted: { jobFinished: true } });
      const state = (await board.get("j2"))!;
      assert.equal(state.status, "failed");
      assert.equal(state.items[0].exhaustedAfter, 2);
    });

    await t.step("release gives the try back; cancel ends what has not started", async () => {
      await board.create(newJob("j3", 3, clock.now()), [{}, {}, {}]);
      const held = await claimOf(board, "j3", 0);
      await board.release("j3", 0, held.claim);
      assert.deepEqual(
        { ...(await board.get("j3"))!.items[0] },
        { status: "queued", tries: 0, startedAt: clock.now() },
      );
      const running = await claimOf(board, "j3", 1);
      const cancelled = await board.cancel("j3");
      assert.equal(cancelled!.jobFinished, false, "item 1 still runs");
      assert.deepEqual(cancelled!.state.items.map((i) => i.status), [
        "cancelled",
        "running",
        "cancelled",
      ]);
      const last = await board.finish("j3", 1, running.claim, done(1));
      assert.equal(last.jobFinished, true);
      assert.equal(last.state!.status, "cancelled");
      assert.equal(await board.cancel("nope"), null);
    });

    await t.step("forty runs finishing at once: every item done, the job ends once", async () => {
      const items = 40;
      await board.create(newJob("j4", items, clock.now()), Array(items).fill({}));
      const claims = await Promise.all(
        Array.from({ length: items }, (_, n) => claimOf(board, "j4", n)),
      );
      const outcomes = await Promise.all(
        claims.map(({ claim }, n) => board.finish("j4", n, claim, done(n))),
      );
      assert.ok(outcomes.every((o) => o.applied));
      assert.equal(outcomes.filter((o) => o.jobFinished).length, 1);
      const state = (await board.get("j4"))!;
      assert.ok(state.items.every((i) => i.status === "done"));
      for (let n = 0; n < items; n++) assert.deepEqual(await board.resultOf("j4", n), done(n));
    });
  });
}
