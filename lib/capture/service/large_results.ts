/**
 * Captures past the capture cache's bound, kept in object storage: the bytes go to an object
 * under a fresh key, and the cache holds a small reference entry pointing to it
 * (cache_record.ts). A later hit reads the bytes back; an object that is gone or slow is a miss.
 * docs/storage.md, "Captures past the cache's bound".
 */
import type { Logger } from "../../log.ts";
import { textHash } from "../../hash.ts";
import { withTimeout } from "../../timeout.ts";
import { traced } from "../../telemetry/trace.ts";
import { OUTPUT_MEDIA_TYPES } from "../request/output.ts";
import { targetLogFields } from "../request/log_target.ts";
import {
  CACHE_READ_TIMEOUT_MS,
  type CachedCapture,
  type CaptureCache,
  type JobKey,
  type StoredImage,
} from "./cache.ts";

/**
 * What the service needs of an object storage (lib/storage/types.ts ObjectStorage has it all;
 * declared here so the capture service does not depend on the storage backends' folder).
 */
export interface LargeResultStorage {
  put(key: string, bytes: Uint8Array, meta: { contentType: string }): Promise<void>;
  get(key: string): Promise<{ bytes: Uint8Array } | null>;
  delete(key: string): Promise<void>;
  /** The largest object it takes; absent when it has no bound of its own. */
  readonly maxObjectBytes?: number;
}

export interface LargeResults {
  /**
   * Writes `capture` to a fresh object, then the cache entry of `key` pointing to it, then
   * deletes the object of the reference entry it replaced (best effort). A failure is logged and
   * leaves the capture served only.
   */
  keep(key: JobKey, capture: CachedCapture): Promise<void>;
  /**
   * The capture a reference entry points to, with its bytes read back (bounded in time); null
   * when the object is gone, has another size, or the storage failed: the caller renders anew.
   */
  read(key: JobKey, entry: CachedCapture): Promise<CachedCapture | null>;
}

// The cache's own bound: a read gets the cache's read time for every this many bytes it carries.
const READ_BYTES_PER_PERIOD = 8 * 1024 * 1024;
const NO_BYTES = new Uint8Array();

/**
 * A fresh object key for a capture of `key`: the hash of the cache key (no URL text in the
 * bucket) and a random version, so a replaced entry never points to the newer bytes, nor a
 * reader to a half-written object.
 */
function objectKeyOf(key: JobKey, extension: string): string {
  const version = crypto.getRandomValues(new Uint8Array(16)).toHex();
  return `captures/${textHash(key.id)}.${version}.${extension}`;
}

/** The bound of reading `bytes` back: the cache's read time per 8 MiB begun. */
function readBoundMs(bytes: number): number {
  return CACHE_READ_TIMEOUT_MS * Math.max(1, Math.ceil(bytes / READ_BYTES_PER_PERIOD));
}

/** Large captures of `cache` kept in `storage`. */
export function createLargeResults(
  deps: { storage: LargeResultStorage; cache: CaptureCache; log: Logger },
): LargeResults {
  const { storage, cache, log } = deps;

  /** Deletes a replaced object; left behind, the bucket's lifecycle rule (or link TTL) ends it. */
  async function forget(key: JobKey, storageKey: string): Promise<void> {
    try {
      await storage.delete(storageKey);
    } catch (error) {
      log.warn("replaced capture object not deleted", { ...await targetLogFields(key.url), error });
    }
  }

  return {
    async keep(key, capture) {
      const bytes = capture.image.byteLength;
      const { maxObjectBytes } = storage;
      if (maxObjectBytes !== undefined && bytes > maxObjectBytes) {
        log.warn("capture too large to cache or store; served only", {
          ...await targetLogFields(key.url),
          bytes,
          maxObjectBytes,
        });
        return;
      }
      // Read before the write so its object can be deleted once nothing points to it. The
      // entry is usually a reference (small); a page that just grew past the bound costs one
      // read of its last cached capture.
      const previous = await cache.get(key);
      const contentType = OUTPUT_MEDIA_TYPES[capture.format];
      const storedImage: StoredImage = {
        storageKey: objectKeyOf(key, capture.format),
        bytes,
        contentType,
      };
      try {
        await storage.put(storedImage.storageKey, capture.image, { contentType });
      } catch (error) {
        log.warn("capture object write failed; served only", {
          ...await targetLogFields(key.url),
          bytes,
          error,
        });
        return;
      }
      await cache.set(key, { ...capture, image: NO_BYTES, storedImage });
      const replaced = previous?.storedImage?.storageKey;
      if (replaced && replaced !== storedImage.storageKey) await forget(key, replaced);
    },

    async read(key, entry) {
      const { storedImage, ...capture } = entry;
      if (!storedImage) return entry;
      const { storageKey, bytes } = storedImage;
      try {
        const object = await traced(
          "capture.object_read",
          {},
          () => withTimeout(storage.get(storageKey), readBoundMs(bytes), "capture object read"),
        );
        if (object?.bytes.byteLength === bytes) return { ...capture, image: object.bytes };
        log.warn("cached capture's object is gone; rendering again", {
          ...await targetLogFields(key.url),
          bytes,
          found: object ? object.bytes.byteLength : null,
        });
      } catch (error) {
        log.warn("cached capture's object read failed; rendering again", {
          ...await targetLogFields(key.url),
          error,
        });
      }
      return null;
    },
  };
}
