/**
 * How a cached capture is written in the store (cache.ts): its bytes as the blob, everything
 * else as the blob's JSON meta. A capture past the cache's bound is written as a reference
 * instead: empty bytes, and a pointer to the object that holds them (large_results.ts).
 * Records written by earlier versions of the service still read.
 */
import type { StoredBlob } from "../../store/store.ts";
import { OUTPUT_FORMATS, type OutputFacts, type OutputFormat } from "../request/output.ts";
import { sniffKind } from "../../codecs/image_info.ts";
import type { CaptureResult, PageMetadata } from "../types.ts";
import { storedReport } from "../report.ts";

/** Where the bytes of a capture past the cache's bound live: one object in object storage. */
export interface StoredImage {
  /** The object's key, fresh for every write (large_results.ts). */
  storageKey: string;
  /** The object's size, checked on read. */
  bytes: number;
  contentType: string;
}

/** A capture as the cache returns it. */
export interface CachedCapture extends CaptureResult {
  /** Epoch ms of the render. */
  capturedAt: number;
  /**
   * Set on a reference entry only: its bytes are in object storage, and `image` is empty until
   * they are read back. Never set on a capture answered to a request.
   */
  storedImage?: StoredImage;
}

const NO_BYTES = new Uint8Array();

/** The blob that records `capture` of `url`. */
export function captureRecord(url: string, capture: CachedCapture): StoredBlob {
  const fields = {
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
  const { storedImage } = capture;
  if (!storedImage) return { bytes: capture.image, meta: { url, ...fields } };
  // The fields are nested: a version of the service that knows no references finds no strategy
  // at the top and reads a miss, instead of serving the empty bytes as the capture.
  const { storageKey, bytes, contentType } = storedImage;
  return {
    bytes: NO_BYTES,
    meta: { url, storedImage: { storageKey, bytes, contentType }, fields },
  };
}

/** The capture a record holds, or null when it is not one (another version may write anything). */
export function captureOfRecord(blob: StoredBlob): CachedCapture | null {
  const storedImage = blob.meta.storedImage === undefined
    ? undefined
    : storedImageOf(blob.meta.storedImage);
  if (storedImage === null) return null;
  const fields = storedImage ? blob.meta.fields : blob.meta;
  if (typeof fields !== "object" || fields === null) return null;
  const { strategy, capturedAt, targetStatus, truncated, page, output, report, format } =
    fields as Record<string, unknown>;
  if (typeof strategy !== "string" || typeof capturedAt !== "number") return null;
  const stored = storedPage(page);
  const kept = storedReport(report);
  return {
    image: blob.bytes,
    format: storedFormat(format, blob.bytes),
    strategy,
    capturedAt,
    targetStatus: typeof targetStatus === "number" ? targetStatus : null,
    ...(truncated === true ? { truncated } : {}),
    ...(stored ? { page: stored } : {}),
    ...(storedFacts(output) ?? {}),
    ...(kept ? { report: kept } : {}),
    ...(storedImage ? { storedImage } : {}),
  };
}

/** A reference's pointer, or null when the value is not a whole one. */
function storedImageOf(value: unknown): StoredImage | null {
  if (typeof value !== "object" || value === null) return null;
  const { storageKey, bytes, contentType } = value as Record<string, unknown>;
  if (typeof storageKey !== "string" || storageKey.length === 0) return null;
  if (!Number.isInteger(bytes) || typeof contentType !== "string") return null;
  return { storageKey, bytes: bytes as number, contentType };
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
