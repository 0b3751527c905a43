import { ApiError, upstreamFailed, upstreamTimeout } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Clock } from "../clock.ts";
import { type CachedCapture, type CaptureCache, captureTarget } from "./cache.ts";
import { optionsDigest } from "./request/options.ts";
import { createCaptureAdmission } from "./admission.ts";
import type { CaptureJob, Capturer } from "./types.ts";
import { METRICS } from "../telemetry/metrics.ts";
import { traced } from "../telemetry/trace.ts";
import { redactUrls, targetLogFields } from "./request/log_target.ts";

/** Largest capture written to the cache; bigger ones are served but not stored. */
export const DEFAULT_MAX_CACHED_PNG_BYTES = 8 * 1024 * 1024;

/** What a request gets: the image, who made it, and whether it came from the cache. */
export interface ScreenshotOutcome extends CachedCapture {
  cached: boolean;
  /** Whole seconds since the render (0 for a fresh one). */
  age: number;
  /** Served past maxAge under staleWhileRevalidate, while a refresh runs. */
  stale?: boolean;
}

export interface TakeOptions {
  /** Bypass the cache and replace the entry (forceRefresh). */
  forceRefresh?: boolean;
  /** The client's request signal: when every waiter of a render is gone, the render is aborted. */
  signal?: AbortSignal;
  /** failOnHttpError: a 4xx/5xx page is a 502 for this request, and its render is not cached. */
  failOnHttpError?: boolean;
  /** maxAge in ms: a cached capture older than this is not served (rendered anew instead). */
  maxAgeMs?: number;
  /**
   * staleWhileRevalidate: a cached capture past maxAgeMs is served at once and refreshed in
   * the background (one refresh per key, only while no render waits for a slot).
   */
  staleWhileRevalidate?: boolean;
}

export interface ScreenshotService {
  take(job: CaptureJob, options?: TakeOptions): Promise<ScreenshotOutcome>;
  stats(): { running: number; queued: number; renderMs: number; flights: number };
  /**
   * Resolves once every cache write started so far has landed or failed: answers go out before
   * their write, so shutdown waits for this before it closes the store.
   */
  writesSettled(): Promise<void>;
}

export interface ScreenshotServiceOptions {
  capturer: Capturer;
  cache: CaptureCache;
  log: Logger;
  clock: Clock;
  /** MAX_CONCURRENT_CAPTURES. */
  maxConcurrent: number;
  /** CAPTURE_TIMEOUT_MS: a render is admitted while the queue ahead fits in it (admission.ts). */
  queueBudgetMs: number;
  /** Hard ceiling on renders waiting for a slot, whatever the time estimate says. */
  maxQueued?: number;
  /** Backstop for a capturer that never settles (it has its own CAPTURE_TIMEOUT_MS ladder). */
  hardTimeoutMs: number;
  /**
   * PNGs above this are served but not cached: a hostile page could otherwise fill the store
   * with giant images at one request each. Default DEFAULT_MAX_CACHED_PNG_BYTES.
   */
  maxCachedBytes?: number;
}

/** One render in progress, shared by every identical request that arrives meanwhile. */
interface Flight {
  key: string;
  /** Started for a forceRefresh request: it began after that request asked for fresh pixels. */
  forced: boolean;
  controller: AbortController;
  waiters: number;
  /** A stale-while-revalidate refresh nobody waits for: a leaving joiner does not abort it. */
  background: boolean;
  /** Whether a 4xx/5xx render may be cached: no waiter asked for failOnHttpError. */
  cacheErrorPages: boolean;
  /** The finished render while its cache write is still running: newer than the store's. */
  done?: CachedCapture;
  promise: Promise<CachedCapture>;
}

/** The reason given to a waiter whose own client went away. */
function cancelledError(): ApiError {
  return upstreamTimeout(
    "The request was cancelled before the capture " +
      "finished.",
    { hint: "Keep the connection open until the capture completes." },
  );
}

/** A target's error status, for failOnHttpError: the target's answer is what failed. */
function targetStatusError(status: number): ApiError {
  return upstreamFailed(`The page answered with HTTP ${status}.`, {
    status: 502,
    hint: `The target's main document ended with status ${status} (failOnHttpError is on); ` +
      "check the URL, or send failOnHttpError: false to capture the page as a browser shows it.",
  });
}

/** Whether a main-document status is an HTTP error (4xx or 5xx). */
function isErrorStatus(status: number | null): status is number {
  return status !== null && status >= 400;
}

/** The deadline's error: the capturer ignored its own timeouts. */
function hardTimeoutError(ms: number): ApiError {
  return upstreamTimeout(`The capture did not finish within ${ms} ms.`, {
    hint: "Try again later, or try a lighter page.",
  });
}

/**
 * Cache, single flight and bounded concurrency in front of a Capturer: a hit is served from
 * the cache; a miss (or forceRefresh) joins the identical render in progress or starts one,
 * which waits for one of `maxConcurrent` slots in a bounded queue, then is cached.
 */
export function createScreenshotService(options: ScreenshotServiceOptions): ScreenshotService {
  const { capturer, cache, log, clock, maxConcurrent, hardTimeoutMs } = options;
  const maxCachedBytes = options.maxCachedBytes ?? DEFAULT_MAX_CACHED_PNG_BYTES;
  const admission = createCaptureAdmission({
    max: maxConcurrent,
    budgetMs: options.queueBudgetMs,
    clock,
    maxQueued: options.maxQueued,
  });
  const flights = new Map<string, Flight>();
  // The cache write in progress per key, so writes of one key land in the order of their renders.
  const writes = new Map<string, Promise<void>>();

  async function render(job: CaptureJob, signal: AbortSignal): Promise<CachedCapture> {
    const release = await traced("capture.queue_wait", {}, () => admission.acquire(signal));
    const deadline = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let outcome: "finished" | "abandoned" = "abandoned";
    try {
      const work = capturer.capture(job, AbortSignal.any([signal, deadline.signal]));
      work.catch(() => {}); // after the deadline nobody awaits it
      const expired = new Promise<never>((_, reject) => {
        // Why: a hung capturer would hold its slot forever and starve the queue.
        timer = setTimeout(() => {
          deadline.abort();
          reject(hardTimeoutError(hardTimeoutMs));
        }, hardTimeoutMs);
      });
      const result = await Promise.race([work, expired]);
      outcome = "finished";
      return { ...result, capturedAt: clock.now() };
    } catch (error) {
      // A page that failed on its own took a real render's time; a timeout or a client that
      // left did not end the render, so its duration teaches the admission estimate nothing.
      const cutOff = signal.aborted || deadline.signal.aborted ||
        (error instanceof ApiError && error.status === 408);
      if (!cutOff) outcome = "finished";
      if (error instanceof ApiError || signal.aborted) throw error;
      log.error("capture failed", { ...await targetLogFields(job.url), error: redactError(error) });
      throw upstreamFailed("The screenshot could not be produced.", {
        hint: "Check that the page loads in a browser, then retry.",
      });
    } finally {
      clearTimeout(timer);
      release(outcome);
    }
  }

  /** Writes a finished render of the flight's key, unless a newer flight or a rule says not. */
  async function keep(flight: Flight, job: CaptureJob, capture: CachedCapture): Promise<void> {
    // Only the current flight of a key writes: an older render that finishes after a
    // forceRefresh render must not put its older image back.
    if (flights.get(flight.key) !== flight) return;
    // failOnHttpError: an error page is refused to its asker, so it is not kept either.
    if (isErrorStatus(capture.targetStatus) && !flight.cacheErrorPages) return;
    if (capture.png.byteLength <= maxCachedBytes) {
      // A write of an older render of the key that is still running ends first: the newer
      // image must land last, or a slow old write would put the old image back.
      const before = writes.get(flight.key);
      const write = (async () => {
        await before?.catch(() => {});
        await traced("capture.cache_write", {}, () => cache.set(job, capture));
      })();
      writes.set(flight.key, write);
      try {
        await write;
      } finally {
        if (writes.get(flight.key) === write) writes.delete(flight.key);
      }
    } else {
      log.warn("capture too large to cache; served only", {
        ...await targetLogFields(job.url),
        bytes: capture.png.byteLength,
        maxCachedBytes,
      });
    }
  }

  function startFlight(
    key: string,
    job: CaptureJob,
    options: { forced: boolean; background?: boolean },
  ): Flight {
    const controller = new AbortController();
    const promise = render(job, controller.signal);
    promise.catch(() => {}); // every waiter may have left; the rejection is theirs
    const flight: Flight = {
      key,
      forced: options.forced,
      background: options.background ?? false,
      controller,
      waiters: 0,
      cacheErrorPages: true,
      promise,
    };
    flights.set(key, flight);
    // Waiters get the image as soon as it is ready, not after the store write (a network
    // store is felt); the flight stays joinable until the write ends, so an identical request
    // that misses the not-yet-written entry still gets this render.
    void promise.then((capture) => (flight.done = capture, keep(flight, job, capture)))
      .catch(() => {})
      .finally(() => {
        if (flights.get(key) === flight) flights.delete(key);
      });
    return flight;
  }

  /** A render for one request only (credentials): never cached, never joined by another. */
  function privateFlight(job: CaptureJob): Flight {
    const controller = new AbortController();
    const promise = render(job, controller.signal);
    promise.catch(() => {});
    const flight = { key: "", forced: true, background: false, controller, waiters: 0, promise };
    return { ...flight, cacheErrorPages: false };
  }

  /**
   * Refreshes a stale entry in the background: once per key (a render in progress already is
   * the refresh), and only while no request waits for a slot, so a refresh never delays or
   * displaces a client's render; the queue's admission refuses it like any other.
   */
  function revalidate(key: string, job: CaptureJob): void {
    if (flights.has(key) || admission.stats().queued > 0) return;
    startFlight(key, job, { forced: false, background: true });
  }

  /** Waits for a flight on behalf of one request; the last waiter to leave aborts it. */
  function join(flight: Flight, signal?: AbortSignal): Promise<CachedCapture> {
    flight.waiters++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        flight.waiters--;
        if (flight.waiters === 0 && !flight.background) {
          if (flights.get(flight.key) === flight) flights.delete(flight.key);
          flight.controller.abort(cancelledError());
        }
        reject(cancelledError());
      };
      // A listener added to a signal that has already fired would never run.
      if (signal?.aborted) return onAbort();
      const done = () => signal?.removeEventListener("abort", onAbort);
      signal?.addEventListener("abort", onAbort, { once: true });
      flight.promise.then(
        (capture) => (done(), resolve(capture)),
        (error) => (done(), reject(error)),
      );
    });
  }

  return {
    async take(job, options = {}) {
      const { forceRefresh = false, signal, failOnHttpError = false, maxAgeMs } = options;
      const refuseErrorPage = (capture: CachedCapture) => {
        if (failOnHttpError && isErrorStatus(capture.targetStatus)) {
          throw targetStatusError(capture.targetStatus);
        }
      };
      if (job.credentials) {
        // A capture behind a login is the caller's alone: no cache, no shared flight.
        const capture = await join(privateFlight(job), signal);
        refuseErrorPage(capture);
        return { ...capture, cached: false, age: 0 };
      }
      const key = `${await captureTarget(job)}\n${job.deviceType}\n${job.colorScheme}\n` +
        (await optionsDigest(job.options) ?? "");
      // A finished render whose write is still running is the entry the store is about to
      // hold (newer than the one it may still have): served as that entry, before the store
      // is read and again after a miss (it may have finished meanwhile).
      const fromWrite = (): ScreenshotOutcome | null => {
        const done = flights.get(key)?.done;
        if (forceRefresh || !done) return null;
        const ageMs = Math.max(0, clock.now() - done.capturedAt);
        if (maxAgeMs !== undefined && ageMs > maxAgeMs) return null;
        METRICS.captureCache.inc({ result: "hit" });
        refuseErrorPage(done);
        return { ...done, cached: true, age: Math.floor(ageMs / 1000) };
      };
      // One lookup counted per request: an entry found is a hit, in the store or being written.
      const written = fromWrite();
      if (written) return written;
      if (!forceRefresh) {
        const hit = await traced("capture.cache_read", {}, () => cache.get(job));
        const ageMs = hit ? Math.max(0, clock.now() - hit.capturedAt) : 0;
        const young = hit !== null && (maxAgeMs === undefined || ageMs <= maxAgeMs);
        const stale = hit !== null && !young && options.staleWhileRevalidate === true;
        if (hit && (young || stale)) {
          METRICS.captureCache.inc({ result: "hit" });
          if (stale) revalidate(key, job);
          refuseErrorPage(hit);
          const age = Math.floor(ageMs / 1000);
          return { ...hit, cached: true, age, ...(stale ? { stale: true } : {}) };
        }
        const landed = fromWrite();
        if (landed) return landed;
        METRICS.captureCache.inc({ result: "miss" });
      }
      // Checked after the last await: a client gone by now must not start a render for nobody.
      if (signal?.aborted) throw cancelledError();
      let flight = flights.get(key);
      // Plain requests join any render of the key. A forceRefresh request joins only a render
      // started for another forceRefresh (a burst of identical refreshes renders once): a
      // render started for a cache miss may have begun well before the refresh was asked for,
      // so the refresh starts its own, which then becomes the one that writes the cache.
      // A finished render (its write still running) reaches here only when it is not wanted:
      // a refresh, or older than maxAge. It is not joined.
      if (!flight || flight.done || (forceRefresh && !flight.forced)) {
        flight = startFlight(key, job, { forced: forceRefresh });
      }
      if (failOnHttpError) flight.cacheErrorPages = false;
      const capture = await join(flight, signal);
      refuseErrorPage(capture);
      return { ...capture, cached: false, age: 0 };
    },

    stats: () => ({ ...admission.stats(), flights: flights.size }),
    async writesSettled() {
      // A write chains on the key's previous one, so the latest per key covers them all.
      while (writes.size > 0) await Promise.allSettled([...writes.values()]);
    },
  };
}

/** An unexpected error for the log, without the query strings its message may quote. */
function redactError(error: unknown): { name?: string; message: string } {
  if (!(error instanceof Error)) return { message: redactUrls(String(error)) };
  return { name: error.name, message: redactUrls(error.message) };
}
