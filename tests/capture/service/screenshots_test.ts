import assert from "node:assert/strict";
import type { CaptureJob } from "../../../lib/capture/types.ts";
import { ApiError } from "../../../lib/errors.ts";
import { manualClock } from "../../../testing/app.ts";
import { shadeOf } from "../../../testing/solid_capturer.ts";
import { eventually } from "../../../testing/wait.ts";
import { serviceWith } from "../../../testing/screenshot_service.ts";

const JOB: CaptureJob = { url: "https://example.com/", deviceType: "mobile", colorScheme: "light" };
const jobFor = (path: string): CaptureJob => ({ ...JOB, url: `https://example.com/${path}` });

/** Lets pending promise callbacks run until `condition` holds (no fixed sleeps). */
const until = (condition: () => boolean) =>
  eventually(condition, "condition reached", { intervalMs: 0 });

Deno.test("identical concurrent requests share one render", async () => {
  const { service, capturer } = serviceWith();
  capturer.hold();
  const pending = Array.from({ length: 8 }, () => service.take(JOB));
  await until(() => capturer.jobs.length === 1);
  capturer.release();
  const outcomes = await Promise.all(pending);
  assert.equal(capturer.jobs.length, 1);
  for (const outcome of outcomes) {
    assert.equal(outcome.cached, false);
    assert.equal(outcome.image, outcomes[0].image);
  }
  const again = await service.take(JOB);
  assert.equal(again.cached, true);
  assert.equal(capturer.jobs.length, 1);
  // The flight outlives the answers until its cache write ends.
  await until(() => service.stats().flights === 0);
});

Deno.test("a forceRefresh request does not join a render started for a cache miss", async () => {
  const { service, capturer, cache } = serviceWith();
  capturer.hold();
  const plain = service.take(JOB);
  await until(() => capturer.jobs.length === 1);
  const forced = service.take(JOB, { forceRefresh: true });
  await until(() => capturer.jobs.length === 2);
  capturer.release();
  const [a, b] = await Promise.all([plain, forced]);
  assert.notEqual(shadeOf(a.image), shadeOf(b.image));
  // Only the newer render is written, whatever order the two finish in.
  assert.equal(cache.writes.length, 1);
  assert.equal(cache.writes[0].image, b.image);
  assert.equal((await service.take(JOB)).image, b.image);
});

Deno.test("identical forceRefresh requests share one render, and plain ones join it", async () => {
  const { service, capturer } = serviceWith();
  capturer.hold();
  const first = service.take(JOB, { forceRefresh: true });
  await until(() => capturer.jobs.length === 1);
  const second = service.take(JOB, { forceRefresh: true });
  const plain = service.take(JOB);
  capturer.release();
  const outcomes = await Promise.all([first, second, plain]);
  assert.equal(capturer.jobs.length, 1);
  assert.ok(outcomes.every((o) => o.image === outcomes[0].image && !o.cached));
});

Deno.test("forceRefresh bypasses a cached entry and replaces it", async () => {
  const { service, capturer } = serviceWith();
  const first = await service.take(JOB);
  const refreshed = await service.take(JOB, { forceRefresh: true });
  assert.equal(refreshed.cached, false);
  assert.notEqual(shadeOf(refreshed.image), shadeOf(first.image));
  const after = await service.take(JOB);
  assert.equal(after.cached, true);
  assert.equal(after.image, refreshed.image);
  assert.equal(capturer.jobs.length, 2);
});

Deno.test("a full queue answers 503 upstream_unavailable with Retry-After", async () => {
  const { service, capturer } = serviceWith({ maxConcurrent: 1, maxQueued: 2 });
  capturer.hold();
  const admitted = [jobFor("a"), jobFor("b"), jobFor("c")].map((job) => service.take(job));
  await until(() => service.stats().running === 1 && service.stats().queued === 2);
  await assert.rejects(service.take(jobFor("d")), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 503);
    assert.equal(error.code, "upstream_unavailable");
    assert.match(error.headers["Retry-After"], /^[1-9]\d*$/);
    return true;
  });
  capturer.release();
  assert.equal((await Promise.all(admitted)).length, 3);
  assert.equal(capturer.jobs.length, 3);
  await until(() => service.stats().flights === 0);
  assert.deepEqual({ ...service.stats(), renderMs: 0 }, {
    running: 0,
    queued: 0,
    renderMs: 0,
    flights: 0,
    waiting: 0,
  });
});

Deno.test("the queue admits by time: as many as finish within the budget at the measured rate", async () => {
  const clock = manualClock();
  const { service, capturer } = serviceWith({ clock, maxConcurrent: 2, queueBudgetMs: 15_000 });
  // Four renders of 3 s each teach the estimate (two slots: 1.5 s per render of throughput).
  for (let round = 0; round < 8; round++) {
    capturer.hold();
    const pair = [service.take(jobFor(`warm${round}a`)), service.take(jobFor(`warm${round}b`))];
    await until(() => service.stats().running === 2);
    clock.advance(3_000);
    capturer.release();
    await Promise.all(pair);
  }
  assert.ok(Math.abs(service.stats().renderMs - 3_000) < 500, `${service.stats().renderMs} ms`);

  capturer.hold();
  // 15 s at 2 renders per 3 s: 10 renders fit (2 running, 8 queued); the 11th would not.
  const admitted = Array.from({ length: 10 }, (_, i) => service.take(jobFor(`q${i}`)));
  await until(() => service.stats().running === 2 && service.stats().queued === 8);
  await assert.rejects(service.take(jobFor("late")), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 503);
    // Retry-After comes from the queue: one render past the budget is 1.5 s away, so 2 s.
    assert.equal(error.headers["Retry-After"], "2");
    return true;
  });
  capturer.release();
  assert.equal((await Promise.all(admitted)).length, 10);
});

Deno.test("a flood far past what the budget allows is shed at once, before any render", async () => {
  const { service, capturer } = serviceWith({ maxConcurrent: 2, queueBudgetMs: 15_000 });
  capturer.hold();
  // Unmeasured, a render is assumed to take 1 s: 30 fit in 15 s with two slots.
  const outcomes = Array.from({ length: 500 }, (_, i) => service.take(jobFor(`flood${i}`)));
  const shed = await Promise.allSettled(outcomes.slice(30));
  assert.ok(shed.every((o) => o.status === "rejected" && (o.reason as ApiError).status === 503));
  assert.deepEqual([service.stats().running, service.stats().queued], [2, 28]);
  capturer.release();
  assert.equal((await Promise.all(outcomes.slice(0, 30))).length, 30);
});

Deno.test("a shared render continues while anyone waits; the last to leave aborts it", async () => {
  const { service, capturer } = serviceWith();
  capturer.hold();
  const leaving = new AbortController();
  const staying = new AbortController();
  const gone = service.take(JOB, { signal: leaving.signal });
  const kept = service.take(JOB, { signal: staying.signal });
  await until(() => capturer.jobs.length === 1);
  leaving.abort();
  await assert.rejects(gone, (e: unknown) => e instanceof ApiError && e.status === 408);
  assert.equal(capturer.signals[0]?.aborted, false);
  capturer.release();
  assert.equal((await kept).cached, false);

  capturer.hold();
  const alone = new AbortController();
  const abandoned = service.take(jobFor("x"), { signal: alone.signal });
  await until(() => capturer.jobs.length === 2);
  alone.abort();
  await assert.rejects(abandoned, (e: unknown) => e instanceof ApiError && e.status === 408);
  assert.equal(capturer.signals[1]?.aborted, true);
  await until(() => service.stats().running === 0);
  capturer.release();
  // The abandoned render is forgotten: the next request starts a new one.
  assert.equal((await service.take(jobFor("x"))).cached, false);
  assert.equal(capturer.jobs.length, 3);
});

Deno.test("a request leaving the queue frees its place and never renders", async () => {
  const { service, capturer } = serviceWith({ maxConcurrent: 1, maxQueued: 1 });
  capturer.hold();
  const running = service.take(jobFor("a"));
  const client = new AbortController();
  const queued = service.take(jobFor("b"), { signal: client.signal });
  await until(() => service.stats().queued === 1);
  client.abort();
  await assert.rejects(queued, ApiError);
  assert.equal(service.stats().queued, 0);
  capturer.release();
  await running;
  assert.deepEqual(capturer.jobs.map((j) => j.url), ["https://example.com/a"]);
});

Deno.test("capturer ApiErrors reach every waiter; other failures become 500 upstream_failed", async () => {
  const { service, capturer, log } = serviceWith();
  capturer.failWith = new ApiError(408, "upstream_timeout", "The page did not load in time.");
  const both = [service.take(JOB), service.take(JOB)];
  for (const outcome of both) {
    await assert.rejects(outcome, (e: unknown) => e instanceof ApiError && e.status === 408);
  }
  capturer.failWith = new Error("Navigating frame was detached");
  await assert.rejects(service.take(JOB), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 500);
    assert.equal(e.code, "upstream_failed");
    assert.doesNotMatch(e.message, /detached/, "internal details stay in the log");
    return true;
  });
  assert.ok(log.lines.some((l) => l.msg === "capture failed" && l.level === "error"));
  capturer.failWith = null;
  assert.equal((await service.take(JOB)).cached, false, "failures are not cached");
});

Deno.test("a capturer that never settles is cut off by the backstop deadline", async () => {
  const { service, capturer } = serviceWith({ hardTimeoutMs: 20 });
  capturer.hold();
  await assert.rejects(service.take(JOB), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 408);
    assert.equal(e.code, "upstream_timeout");
    return true;
  });
  assert.equal(capturer.signals[0]?.aborted, true, "the capturer was told to stop");
  assert.equal(service.stats().running, 0, "the slot is free again");
  capturer.release();
});

Deno.test("peek answers what the cache holds and never renders", async () => {
  const clock = manualClock();
  const { service, capturer } = serviceWith({ clock });
  assert.equal(await service.peek(JOB), null);
  assert.equal(capturer.jobs.length, 0, "a miss renders nothing");
  const taken = await service.take(JOB);
  await until(() => service.stats().flights === 0);
  clock.advance(5_000);
  const held = await service.peek(JOB);
  assert.equal(held?.cached, true);
  assert.equal(held?.age, 5);
  assert.equal(held?.image, taken.image);
  // Too old for maxAge, a refresh, or a private capture: the cache may not answer them.
  assert.equal(await service.peek(JOB, { maxAgeMs: 1_000 }), null);
  assert.equal(await service.peek(JOB, { forceRefresh: true }), null);
  const credentials = { cookies: [{ name: "s", value: "1" }] };
  assert.equal(await service.peek({ ...JOB, credentials } as CaptureJob), null);
  assert.equal(capturer.jobs.length, 1);
});
