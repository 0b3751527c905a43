import { withTimeout } from "../../timeout.ts";
import type { Logger } from "../../log.ts";
import type { Store, StoreKey } from "../../store/store.ts";
import { optionsDigest } from "../request/options.ts";
import type { CaptureJob } from "../types.ts";
import { textHash, urlHash } from "../../hash.ts";
import { type CachedCapture, captureOfRecord, captureRecord } from "./cache_record.ts";

export type { CachedCapture, StoredImage } from "./cache_record.ts";

// A slow store must not hold a capture hostage: past these, a read is a miss and a write is
// skipped (the request still gets its image).
// (A read timing out under CPU saturation costs a whole render, so it is not too tight.)
export const CACHE_READ_TIMEOUT_MS = 2_500;
export const CACHE_WRITE_TIMEOUT_MS = 3_000;

/**
 * A job's identity, computed once per request (jobKey): the store key of its cached capture,
 * the same key as one string (the single flight's), and the URL (the record's metadata).
 */
export interface JobKey {
  store: StoreKey;
  id: string;
  url: string;
}

export interface CaptureCache {
  /**
   * The entry of `key`, or null. An entry past the cache's bound is a reference (`storedImage`
   * set, `image` empty) whose bytes the screenshot service reads back (large_results.ts).
   */
  get(key: JobKey): Promise<CachedCapture | null>;
  /** Writes the entry of `key` (a reference when `storedImage` is set); failures are logged. */
  set(key: JobKey, capture: CachedCapture): Promise<void>;
  /** Removes every variant (device, scheme, options) of one normalised URL; returns the count. */
  purgeUrl(url: string): Promise<number>;
  /** Removes every cached capture; returns the count. */
  purgeAll(): Promise<number>;
}

export interface CaptureCacheOptions {
  store: Store;
  log: Logger;
  ttlMs: number;
}

const ROOT = "capture";

/**
 * The prefix of every variant of one URL. The URL is hashed so keys stay short whatever its
 * length (Deno KV keys are capped at 2 KiB) and carry no user text.
 */
export function captureUrlKey(url: string): StoreKey {
  return [ROOT, urlHash(url)];
}

/**
 * What a job renders, as the cache and the single flight name it: its URL, or for an `html` job
 * the hash of the document (every such job has the URL about:blank).
 */
export function captureTarget(job: CaptureJob): string {
  // Hashed in the calling turn, as URLs are (hash.ts): identical requests find each other's render.
  return job.html === undefined ? job.url : `html:${textHash(job.html)}`;
}

/**
 * The cache key of one job: normalised URL, device type, colour scheme, plus a digest of the
 * non-default options when there are any (so a plain capture keeps the key it always had, and
 * every option variant still sits under the URL's prefix for purging).
 */
export async function captureKey(job: CaptureJob): Promise<StoreKey> {
  return (await jobKey(job)).store;
}

/** The identity of `job`: its cache key, hashed once, and that key as one string. */
export async function jobKey(job: CaptureJob): Promise<JobKey> {
  return jobKeyOf(job, await optionsDigest(job.options), captureTarget(job));
}

/**
 * The identity of `job` once its options' digest (optionsDigest) and its target (captureTarget)
 * are known.
 */
export function jobKeyOf(job: CaptureJob, digest: string | null, target = job.url): JobKey {
  const key = [...captureUrlKey(target), job.deviceType, job.colorScheme];
  const store = digest ? [...key, digest] : key;
  return { store, id: store.join("/"), url: job.url };
}

/** Captures in the store; store failures are logged and behave as a miss or a skipped write. */
export function createCaptureCache(options: CaptureCacheOptions): CaptureCache {
  const { store, log, ttlMs } = options;

  return {
    async get(key) {
      try {
        const blob = await withTimeout(
          store.getBlob(key.store),
          CACHE_READ_TIMEOUT_MS,
          "capture cache read",
        );
        // A record from another version of the service is a miss, not a crash.
        return blob ? captureOfRecord(blob) : null;
      } catch (error) {
        log.warn("capture cache read failed", { error });
        return null;
      }
    },

    async set(key, capture) {
      try {
        await withTimeout(
          store.setBlob(key.store, captureRecord(key.url, capture), ttlMs),
          CACHE_WRITE_TIMEOUT_MS,
          "capture cache write",
        );
      } catch (error) {
        log.warn("capture cache write failed", { error });
      }
    },

    async purgeUrl(url) {
      return await store.deleteBlobs(captureUrlKey(url));
    },

    purgeAll() {
      return store.deleteBlobs([ROOT]);
    },
  };
}

/** The cache of an app, from its config (CACHE_TTL_SECONDS). */
export function captureCacheOf(
  deps: { store: Store; log: Logger; config: { CACHE_TTL_SECONDS: number } },
): CaptureCache {
  const { store, log, config } = deps;
  return createCaptureCache({ store, log, ttlMs: config.CACHE_TTL_SECONDS * 1000 });
}
