import assert from "node:assert/strict";
import { ExportFailure } from "../../lib/codecs/errors.ts";
import { BUSY_RETRY_AFTER_SECONDS, JobScheduler } from "../../lib/codecs/scheduler.ts";

const SMALL = 100;
const LARGE = 10_000;

function scheduler(maxQueue = 2) {
  return new JobScheduler({ slots: 2, smallSlots: 1, smallMaxPixels: SMALL, maxQueue });
}

/** A job that records its slot and runs until the test releases it. */
function gate() {
  const slots: number[] = [];
  const releases: (() => void)[] = [];
  const job = (slot: number) => {
    slots.push(slot);
    return new Promise<number>((resolve) => releases.push(() => resolve(slot)));
  };
  return { job, slots, releaseNext: () => releases.shift()!() };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("jobs run on the regular slots, then wait in order", async () => {
  const s = scheduler();
  const g = gate();
  const runs = [s.run(LARGE, g.job), s.run(LARGE, g.job), s.run(LARGE, g.job)];
  await tick();
  assert.deepEqual(g.slots, [0, 1], "two large jobs run, the third waits");
  assert.deepEqual(s.load, { running: 2, queued: 1 });
  g.releaseNext();
  assert.equal(await runs[0], 0);
  await tick();
  assert.deepEqual(g.slots, [0, 1, 0], "the waiting job takes the freed slot");
  g.releaseNext();
  g.releaseNext();
  await Promise.all(runs);
  assert.deepEqual(s.load, { running: 0, queued: 0 });
});

Deno.test("a small image uses the reserved slot while large ones hold the others", async () => {
  const s = scheduler();
  const g = gate();
  const runs = [s.run(LARGE, g.job), s.run(LARGE, g.job), s.run(LARGE, g.job), s.run(SMALL, g.job)];
  await tick();
  assert.deepEqual(g.slots, [0, 1, 2], "the small job ran at once on slot 2; a large one waits");
  g.releaseNext(); // slot 0 frees: the large job waiting gets it
  await tick();
  assert.deepEqual(g.slots, [0, 1, 2, 0]);
  g.releaseNext();
  g.releaseNext();
  g.releaseNext();
  await Promise.all(runs);
});

Deno.test("a large image never takes the small slot, and a full queue is a 503", async () => {
  const s = scheduler(1);
  const g = gate();
  const runs = [s.run(LARGE, g.job), s.run(LARGE, g.job), s.run(LARGE, g.job)];
  await tick();
  assert.deepEqual(s.load, { running: 2, queued: 1 });
  const error = await s.run(LARGE, g.job).catch((e) => e);
  // The 503 with Retry-After that this becomes is tested through the route (export_errors_test).
  assert.ok(error instanceof ExportFailure);
  assert.deepEqual(error.detail, { kind: "busy", retryAfterS: BUSY_RETRY_AFTER_SECONDS });
  for (let i = 0; i < 3; i++) {
    g.releaseNext();
    await tick();
  }
  await Promise.all(runs);
});

Deno.test("a failing job frees its slot for the next one", async () => {
  const s = scheduler();
  await assert.rejects(s.run(LARGE, () => Promise.reject(new Error("boom"))), /boom/);
  assert.deepEqual(s.load, { running: 0, queued: 0 });
  assert.equal(await s.run(LARGE, (slot) => Promise.resolve(slot)), 0);
});

Deno.test("reservations are bounded by expected wait and by the upload bytes they hold", () => {
  const s = new JobScheduler({
    slots: 1,
    smallSlots: 0,
    smallMaxPixels: 0,
    maxQueue: 1000,
    budgetMs: 2_000,
    maxReservedBytes: 10_000,
  });
  // Unmeasured, an export is assumed to take 0.5 s: four fit in 2 s on one slot.
  const held = Array.from({ length: 4 }, () => s.reserve(0));
  const late = (() => {
    try {
      s.reserve(0);
    } catch (error) {
      return error;
    }
  })();
  assert.ok(late instanceof ExportFailure);
  assert.deepEqual(late.detail, { kind: "busy", retryAfterS: 1 });
  for (const release of held) release();

  const big = s.reserve(8_000); // one upload is always let in, whatever its size
  assert.throws(
    () => s.reserve(4_000),
    (e: unknown) => e instanceof ExportFailure && e.detail.kind === "busy",
  );
  const small = s.reserve(2_000);
  big();
  s.reserve(8_000)();
  small();
});

Deno.test("an idle regular slot is lent only while nobody waits, and handed on when released", async () => {
  const s = scheduler();
  const g = gate();
  const first = s.run(LARGE, g.job); // slot 0
  await tick();
  const lease = s.borrow();
  assert.equal(lease?.slot, 1, "the other regular slot is lent");
  assert.equal(s.borrow(), undefined, "the small slot is never lent");
  assert.equal(lease.wanted(), false);
  const waiting = s.run(LARGE, g.job); // both regular slots are taken: it waits
  await tick();
  assert.deepEqual(s.load, { running: 2, queued: 1 });
  assert.equal(lease.wanted(), true, "the borrower learns that an export waits");
  lease.release();
  lease.release(); // a second release changes nothing
  await tick();
  assert.deepEqual(g.slots, [0, 1], "the waiting export got the lent slot");
  g.releaseNext();
  await first;
  const again = s.borrow();
  assert.equal(again?.slot, 0, "a freed slot can be lent again while nobody waits");
  again.release();
  g.releaseNext();
  await waiting;
  assert.deepEqual(s.load, { running: 0, queued: 0 });
});
