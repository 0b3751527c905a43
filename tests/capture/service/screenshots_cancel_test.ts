/**
 * Clients that leave, renders that are cut off and cache writes that overlap: nothing renders
 * for nobody, only renders that ran to their own end teach the admission estimate, and the
 * newest render's image is the one the cache keeps.
 */
import assert from "node:assert/strict";
import { CaptureFailure, type CaptureJob } from "../../../lib/capture/types.ts";
import { PageFailure } from "../../../lib/capture/page/page_failure.ts";
import { PRIOR_RENDER_MS } from "../../../lib/capture/service/admission.ts";
import { ApiError } from "../../../lib/errors.ts";
import { manualClock } from "../../../testing/app.ts";
import { memoryCache, serviceWith } from "../../../testing/screenshot_service.ts";
import { eventually } from "../../../testing/wait.ts";

const JOB: CaptureJob = {
  url: "https://example.com/",
  deviceType: "desktop",
  colorScheme: "light",
  // With options the cache key needs a digest: an await between the cache read and the render.
  options: { fullPage: true },
};

const until = (condition: () => boolean) =>
  eventually(condition, "condition reached", { intervalMs: 0 });

const isCancelled = (e: unknown) => e instanceof ApiError && e.status === 408;

/** Holds every SHA-256 digest until `open` is called, and says when the first one started. */
function holdDigests() {
  const subtle = crypto.subtle;
  const original = subtle.digest;
  const started = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  Object.defineProperty(subtle, "digest", {
    configurable: true,
    value: async (...args: Parameters<SubtleCrypto["digest"]>) => {
      started.resolve();
      await gate.promise;
      return original.apply(subtle, args);
    },
  });
  return {
    started: started.promise,
    open: () => gate.resolve(),
    [Symbol.dispose]: () => void delete (subtle as { digest?: unknown }).digest,
  };
}

Deno.test("a client that leaves while the cache key is computed starts no render", async () => {
  const { service, capturer } = serviceWith();
  using digests = holdDigests();
  const client = new AbortController();
  const taking = service.take(JOB, { signal: client.signal });
  await digests.started;
  client.abort();
  digests.open();
  await assert.rejects(taking, isCancelled);
  assert.equal(capturer.jobs.length, 0, "nothing was rendered for a client that left");
  assert.equal(service.stats().flights, 0);
});

Deno.test("cancelled and timed-out renders do not teach the admission estimate", async () => {
  const clock = manualClock();
  const { service, capturer } = serviceWith({ clock, maxConcurrent: 1 });

  capturer.hold();
  const client = new AbortController();
  const cancelled = service.take({ ...JOB, url: "https://example.com/a" }, {
    signal: client.signal,
  });
  await until(() => service.stats().running === 1);
  clock.advance(15_000);
  client.abort();
  await assert.rejects(cancelled, isCancelled);
  await until(() => service.stats().running === 0);
  assert.equal(service.stats().renderMs, PRIOR_RENDER_MS, "a cancelled render is not a sample");

  capturer.release();
  // The page's own budget ran out: answered 408, and no sample of render time.
  capturer.failWith = new CaptureFailure({
    kind: "page_failed",
    cause: new PageFailure({ kind: "no_paint" }),
    url: "https://example.com/b",
    timeoutMs: 15_000,
    timedOut: true,
  });
  capturer.hold();
  const timedOut = service.take({ ...JOB, url: "https://example.com/b" });
  await until(() => service.stats().running === 1);
  clock.advance(15_000);
  capturer.release();
  await assert.rejects(timedOut, isCancelled);
  assert.equal(service.stats().renderMs, PRIOR_RENDER_MS, "a timed-out render is not a sample");

  capturer.failWith = null;
  capturer.hold();
  const finished = service.take({ ...JOB, url: "https://example.com/c" });
  await until(() => service.stats().running === 1);
  clock.advance(2_000);
  capturer.release();
  await finished;
  assert.equal(service.stats().renderMs, 1_200, "a finished render moves the estimate");
});

Deno.test("a slow cache write of an older render never lands after a refresh's", async () => {
  const cache = memoryCache();
  const landed: number[] = [];
  const firstWrite = Promise.withResolvers<void>();
  let writes = 0;
  const set = cache.set;
  cache.set = async (job, capture) => {
    const mine = ++writes;
    if (mine === 1) await firstWrite.promise;
    await set(job, capture);
    landed.push(mine);
  };
  const { service } = serviceWith({ cache });
  const plain = { ...JOB, options: undefined };
  const first = await service.take(plain);
  const refreshed = await service.take(plain, { forceRefresh: true });
  assert.notEqual(refreshed.image, first.image);
  firstWrite.resolve();
  await eventually(() => landed.length === 2, "both writes are over");
  assert.deepEqual(landed, [1, 2], "the refresh's write lands last");
  const after = await service.take(plain);
  assert.equal(after.cached, true);
  assert.deepEqual(after.image, refreshed.image);
});
