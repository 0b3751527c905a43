import { withTimeout } from "../../timeout.ts";
import type { Logger } from "../../log.ts";
import type { Store, StoreKey } from "../../store/store.ts";
import { optionsDigest } from "../request/options.ts";
import { OUTPUT_FORMATS, type OutputFacts, type OutputFormat } from "../request/output.ts";
import { sniffKind } from "../../codecs/image_info.ts";
import type { CaptureJob, CaptureResult, PageMetadata } from "../types.ts";
import { textHash, urlHash } from "../../hash.ts";
import { storedReport } from "../report.ts";

// A slow store must not hold a capture hostage: past these, a read is a miss and a write is
// skipped (the request still gets its image).
// (A read timing out under CPU saturation costs a whole render, so it is not too tight.)
export const CACHE_READ_TIMEOUT_MS = 2_500;
export const CACHE_WRITE_TIMEOUT_MS = 3_000;

/** A capture as the cache returns it. */
export interface CachedCapture extends CaptureResult {
  /** Epoch ms of the render. */
  capturedAt: number;
}

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
  get(key: JobKey): Promise<CachedCapture | null>;
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
        if (!blob) return null;
        const { strategy, capturedAt, targetStatus, truncated, page, output, report } = blob.meta;
        // A record from another version of the service is a miss, not a crash.
        if (typeof strategy !== "string" || typeof capturedAt !== "number") return null;
        const stored = storedPage(page);
        const kept = storedReport(report);
        return {
          image: blob.bytes,
          format: storedFormat(blob.meta.format, blob.bytes),
          strategy,
          capturedAt,
          targetStatus: typeof targetStatus === "number" ? targetStatus : null,
          ...(truncated === true ? { truncated } : {}),
          ...(stored ? { page: stored } : {}),
          ...(storedFacts(output) ?? {}),
          ...(kept ? { report: kept } : {}),
        };
      } catch (error) {
        log.warn("capture cache read failed", { error });
        return null;
      }
    },

    async set(key, capture) {
      try {
        const meta = {
          url: key.url,
          strategy: capture.strategy,
          capturedAt: capture.capturedAt,
          targetStatus: capture.targetStatus,
          // Only when set, so a plain capture's record is byte for byte what it always was.
          ...(capture.format !== "png" ? { format: capture.format } : {}),
          ...(capture.truncated ? { truncated: true } : {}),
          ...(capture.page ? { page: capture.page } : {}),
          ...(capture.output ? { output: capture.output } : {}),
          ...(capture.report ? { report: capture.report } : {}),
        };
        await withTimeout(
          store.setBlob(key.store, { bytes: capture.image, meta }, ttlMs),
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

/**
 * A record's format: as stored, or for a record without it (a png, or one written before the
 * format was kept) what its bytes' magic number says; png when they say nothing else.
 */
function storedFormat(value: unknown, bytes: Uint8Array): OutputFormat {
  if ((OUTPUT_FORMATS as readonly unknown[]).includes(value)) return value as OutputFormat;
  return sniffKind(bytes) ?? "png";
}

const FACT_FIELDS = ["pages", "width", "height", "durationMs", "frames", "fps"] as const;

/** A PDF's or a recording's stored facts, as `{ output }`; null when there are none. */
function storedFacts(value: unknown): { output: OutputFacts } | null {
  if (typeof value !== "object" || value === null) return null;
  const record = value as Record<string, unknown>;
  const facts = Object.fromEntries(
    FACT_FIELDS.filter((field) => Number.isInteger(record[field])).map((f) => [f, record[f]]),
  );
  return Object.keys(facts).length > 0 ? { output: facts as OutputFacts } : null;
}

const PAGE_FIELDS = ["title", "description", "lang", "themeColor", "favicon", "ogImage"];

/**
 * Stored page metadata, or null when the value is not (a record of another version may hold
 * anything). A record from before the favicon's bytes were kept has none.
 */
function storedPage(value: unknown): PageMetadata | null {
  if (typeof value !== "object" || value === null) return null;
  const record = value as Record<string, unknown>;
  if (!PAGE_FIELDS.every((f) => record[f] === null || typeof record[f] === "string")) return null;
  const { faviconData } = record;
  const texts = Object.fromEntries(PAGE_FIELDS.map((f) => [f, record[f]]));
  return {
    ...texts as Omit<PageMetadata, "faviconData">,
    faviconData: typeof faviconData === "string" && faviconData.startsWith("data:image/")
      ? faviconData
      : null,
  };
}

/** The cache of an app, from its config (CACHE_TTL_SECONDS). */
export function captureCacheOf(
  deps: { store: Store; log: Logger; config: { CACHE_TTL_SECONDS: number } },
): CaptureCache {
  const { store, log, config } = deps;
  return createCaptureCache({ store, log, ttlMs: config.CACHE_TTL_SECONDS * 1000 });
}
