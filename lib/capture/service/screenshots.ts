/**
 * The screenshot service: the request path of a capture, from the cache to a render and back.
 * The parts it puts together live beside it: freshness.ts (may a cached capture answer),
 * flights.ts (one shared render per key), write_order.ts (cache writes of a key land in render
 * order), bounded_render.ts (a render slot and the deadline), large_results.ts (captures past the
 * cache's bound, in object storage), failures.ts (its errors).
 */
import type { Logger } from "../../log.ts";
import type { Clock } from "../../clock.ts";
import {
  type CachedCapture,
  type CaptureCache,
  captureTarget,
  type JobKey,
  jobKeyOf,
} from "./cache.ts";
import { optionsDigest } from "../request/options.ts";
import { createCaptureAdmission } from "./admission.ts";
import type { CaptureJob, Capturer } from "../types.ts";
import { METRICS } from "../../telemetry/metrics.ts";
import { traced } from "../../telemetry/trace.ts";
import { targetLogFields } from "../request/log_target.ts";
import { cancelledError, targetStatusError } from "../failures.ts";
import { createFlights, type Flight } from "./flights.ts";
import { createBoundedRender } from "./bounded_render.ts";
import { type Freshness, freshnessOf } from "./freshness.ts";
import { createOrderedWrites } from "./write_order.ts";
import { createLargeResults, type LargeResultStorage } from "./large_results.ts";

/**
 * Largest capture written to the cache as it is; bigger ones go to object storage when the
 * service has one (largeResults), else are served but not stored.
 */
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
  /**
   * The answer `take` would give from the cache right now, or null when it would render: never
   * renders (a stale entry under staleWhileRevalidate still starts its background refresh).
   */
  peek(job: CaptureJob, options?: TakeOptions): Promise<ScreenshotOutcome | null>;
  stats(): {
    running: number;
    queued: number;
    renderMs: number;
    flights: number;
    /** Requests waiting on those flights (several per flight when they joined one). */
    waiting: number;
  };
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
   * Captures above this are not cached as they are: a hostile page could otherwise fill the
   * store with giant images at one request each. Default DEFAULT_MAX_CACHED_PNG_BYTES.
   */
  maxCachedBytes?: number;
  /**
   * Where captures above maxCachedBytes are kept instead (the app's object storage): the cache
   * then holds a reference to the object. Absent, they are served only.
   */
  largeResults?: LargeResultStorage;
}

/** Whether a main-document status is an HTTP error (4xx or 5xx). */
function isErrorStatus(status: number | null): status is number {
  return status !== null && status >= 400;
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
  const render = createBoundedRender({ capturer, admission, clock, log, hardTimeoutMs });
  const writes = createOrderedWrites();
  const flights = createFlights({ render, keep });
  const large = options.largeResults
    ? createLargeResults({ storage: options.largeResults, cache, log })
    : null;

  /** Writes a finished render of the flight's key, unless a newer flight or a rule says not. */
  async function keep(flight: Flight, capture: CachedCapture): Promise<void> {
    const { key } = flight;
    // Only the current flight of a key writes: an older render that finishes after a
    // forceRefresh render must not put its older image back.
    if (flights.get(key.id) !== flight) return;
    // failOnHttpError: an error page is refused to its asker, so it is not kept either.
    if (isErrorStatus(capture.targetStatus) && !flight.cacheErrorPages) return;
    if (capture.image.byteLength <= maxCachedBytes) {
      await writes.write(
        key.id,
        () => traced("capture.cache_write", {}, () => cache.set(key, capture)),
      );
    } else if (large) {
      await writes.write(
        key.id,
        () => traced("capture.object_write", {}, () => large.keep(key, capture)),
      );
    } else {
      log.warn("capture too large to cache; served only", {
        ...await targetLogFields(key.url),
        bytes: capture.image.byteLength,
        maxCachedBytes,
      });
    }
  }

  /**
   * Refreshes a stale entry in the background: once per key (a render in progress already is
   * the refresh), and only while no request waits for a slot, so a refresh never delays or
   * displaces a client's render; the queue's admission refuses it like any other.
   */
  function revalidate(key: JobKey, job: CaptureJob): void {
    if (flights.get(key.id) || admission.stats().queued > 0) return;
    flights.start(key, job, { forced: false, background: true });
  }

  /** A cached capture as this request's answer: counted as a hit, refused if an error page. */
  function served(
    capture: CachedCapture,
    freshness: Freshness,
    failOnHttpError: boolean,
  ): ScreenshotOutcome {
    METRICS.captureCache.inc({ result: "hit" });
    if (failOnHttpError && isErrorStatus(capture.targetStatus)) {
      throw targetStatusError(capture.targetStatus);
    }
    const age = Math.floor(freshness.ageMs / 1000);
    return {
      ...capture,
      cached: true,
      age,
      ...(freshness.state === "stale" ? { stale: true } : {}),
    };
  }

  /**
   * A finished render whose write is still running is the entry the store is about to hold
   * (newer than the one it may still have): served as that entry when it is young enough.
   */
  function beingWritten(key: JobKey, options: TakeOptions): ScreenshotOutcome | null {
    const done = flights.get(key.id)?.done;
    if (options.forceRefresh || !done) return null;
    const freshness = freshnessOf(done.capturedAt, clock.now(), { maxAgeMs: options.maxAgeMs });
    if (freshness.state !== "fresh") return null;
    return served(done, freshness, options.failOnHttpError ?? false);
  }

  /** The cached answer for `key`, if any may serve this request (refreshing a stale one). */
  async function fromCache(
    key: JobKey,
    job: CaptureJob,
    options: TakeOptions,
  ): Promise<ScreenshotOutcome | null> {
    // Looked for before the store is read and again after a miss (it may have finished since).
    // A hit is counted where it is served; the miss by the caller, once it renders.
    const written = beingWritten(key, options);
    if (written) return written;
    if (options.forceRefresh) return null;
    const hit = await traced("capture.cache_read", {}, () => cache.get(key));
    if (hit) {
      const freshness = freshnessOf(hit.capturedAt, clock.now(), options);
      // An expired entry's object is not read; a reference that cannot be read back is a miss,
      // as is one found while this service has no object storage (configured away).
      const capture = freshness.state === "expired"
        ? null
        : hit.storedImage
        ? await large?.read(key, hit) ?? null
        : hit;
      if (capture) {
        if (freshness.state === "stale") revalidate(key, job);
        return served(capture, freshness, options.failOnHttpError ?? false);
      }
    }
    return beingWritten(key, options);
  }

  return {
    async take(job, options = {}) {
      const { forceRefresh = false, signal, failOnHttpError = false } = options;
      const rendered = (capture: CachedCapture): ScreenshotOutcome => {
        if (failOnHttpError && isErrorStatus(capture.targetStatus)) {
          throw targetStatusError(capture.targetStatus);
        }
        return { ...capture, cached: false, age: 0 };
      };
      if (job.credentials) {
        // A capture behind a login is the caller's alone: no cache, no shared flight.
        return rendered(await flights.join(flights.solo(job), signal));
      }
      const key = jobKeyOf(job, await optionsDigest(job.options), captureTarget(job));
      // A refresh reads no cache: only a render started after it was asked for may answer it.
      const cached = forceRefresh ? null : await fromCache(key, job, options);
      if (cached) return cached;
      // The render may have finished in the turns since the cache was looked at: a young enough
      // result answers this request as it would have a moment earlier.
      const late = beingWritten(key, options);
      if (late) return late;
      // One lookup counted per request: an entry found is a hit, in the store or being written.
      if (!forceRefresh) METRICS.captureCache.inc({ result: "miss" });
      // Checked after the last await: a client gone by now must not start a render for nobody.
      if (signal?.aborted) throw cancelledError();
      let flight = flights.get(key.id);
      // Plain requests join any render of the key. A forceRefresh request joins only a render
      // started for another forceRefresh (a burst of identical refreshes renders once): a
      // render started for a cache miss may have begun well before the refresh was asked for,
      // so the refresh starts its own, which then becomes the one that writes the cache.
      // A finished render (its write still running) reaches here only when it is not wanted:
      // a refresh, or older than maxAge. It is not joined.
      if (!flight || flight.done || (forceRefresh && !flight.forced)) {
        flight = flights.start(key, job, { forced: forceRefresh });
      }
      if (failOnHttpError) flight.cacheErrorPages = false;
      return rendered(await flights.join(flight, signal));
    },

    async peek(job, options = {}) {
      // A private capture or a refresh is never answered from the cache.
      if (job.credentials || options.forceRefresh) return null;
      const key = jobKeyOf(job, await optionsDigest(job.options), captureTarget(job));
      return await fromCache(key, job, options);
    },

    stats: () => ({ ...admission.stats(), flights: flights.size(), waiting: flights.waiting() }),
    writesSettled: () => writes.settled(),
  };
}
