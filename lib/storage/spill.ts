/**
 * Object storage without a bucket: results spill into the shared store as capture links
 * (lib/capture/links.ts), so they are served by the existing GET /api/captures/{id} with its
 * ranges, ETag and expiry. A link's id is random and is the URL's only secret, while a caller's
 * key may be guessable ("results/job-42.png"), so the key is never the id: a small record in the
 * store maps each key to the id of its current link, with the link's own lifetime.
 */
import type { CaptureLinks } from "../capture/links.ts";
import { captureUrlOf, MAX_KEPT_CAPTURE_BYTES } from "../capture/links.ts";
import type { Store, StoreKey } from "../store/store.ts";
import { withTimeout } from "../timeout.ts";
import {
  checkObjectKey,
  type ObjectMeta,
  ObjectNotFound,
  type ObjectStorage,
  ObjectTooLarge,
} from "./types.ts";

// The key records are a few bytes; a store that takes longer than this is failing.
const KEY_RECORD_TIMEOUT_MS = 2_000;

/** Where the id of `key`'s current link is recorded. */
function keyRecord(key: string): StoreKey {
  return ["storage_key", key];
}

/** The file name a link is served under: Content-Disposition's filename, else the key's tail. */
function nameOf(key: string, meta: ObjectMeta): string {
  const quoted = /filename="([^"]*)"/.exec(meta.contentDisposition ?? "")?.[1];
  const bare = /filename=([^";\s]+)/.exec(meta.contentDisposition ?? "")?.[1];
  return quoted || bare || key.slice(key.lastIndexOf("/") + 1) || "result";
}

/**
 * Object storage in `store` through `links` (which must be kept in the same store for
 * `ttlMs`, as captureLinksOf makes them): objects live as long as a capture link, and
 * `urlFor` answers their link whatever `expiresInSeconds` asks. Bounded by
 * MAX_KEPT_CAPTURE_BYTES (ObjectTooLarge past it).
 */
export function createStoreSpill(
  deps: { store: Store; links: CaptureLinks; ttlMs: number; maxBytes?: number },
): ObjectStorage {
  const { store, links, ttlMs, maxBytes = MAX_KEPT_CAPTURE_BYTES } = deps;

  /** The id of `key`'s current link, or null. */
  async function idOf(key: string): Promise<string | null> {
    const record = await withTimeout(
      store.getValue<{ id?: unknown }>(keyRecord(key)),
      KEY_RECORD_TIMEOUT_MS,
      "object key read",
    );
    return typeof record?.id === "string" ? record.id : null;
  }

  return {
    kind: "store",
    maxObjectBytes: maxBytes,

    async put(key, bytes, meta) {
      checkObjectKey(key);
      if (bytes.byteLength > maxBytes) throw new ObjectTooLarge(bytes.byteLength, maxBytes);
      const previous = await idOf(key);
      // The base URL is not kept with the link; urlFor builds the URL for its caller's.
      const link = await links.keep(
        { bytes, mediaType: meta.contentType, name: nameOf(key, meta), about: {} },
        "",
      );
      await withTimeout(
        store.setValue(keyRecord(key), { id: link.id }, ttlMs),
        KEY_RECORD_TIMEOUT_MS,
        "object key write",
      );
      // The replaced bytes would otherwise stay readable by their old link until it expires.
      if (previous && previous !== link.id) await links.forget(previous);
    },

    async get(key) {
      checkObjectKey(key);
      const id = await idOf(key);
      const kept = id ? await links.read(id) : null;
      return kept ? { bytes: kept.bytes, contentType: kept.mediaType } : null;
    },

    async delete(key) {
      checkObjectKey(key);
      const id = await idOf(key);
      if (!id) return;
      await links.forget(id);
      // The store has no value delete: a null record that expires at once reads as absent.
      await withTimeout(
        store.setValue(keyRecord(key), null, 1),
        KEY_RECORD_TIMEOUT_MS,
        "object key delete",
      );
    },

    async urlFor(key, { baseUrl }) {
      checkObjectKey(key);
      const id = await idOf(key);
      if (!id) throw new ObjectNotFound(key);
      return captureUrlOf(baseUrl, id);
    },

    async check() {
      await withTimeout(store.getValue(["storage_key"]), KEY_RECORD_TIMEOUT_MS, "store ping");
    },

    close() {
      return Promise.resolve();
    },
  };
}
