/**
 * Capture links: the exact bytes of a capture an MCP tool answered, kept in the store for a while
 * under an unguessable id, so an agent that got a downscaled preview can fetch the full capture
 * one link away (MCP `resources/read`, or `GET /api/captures/{id}` with no session). The id is
 * the only secret: random bits, never derived from the URL or the bytes, so knowing a page or a
 * capture of it does not lead to its link.
 */
import type { Clock } from "../clock.ts";
import type { Store, StoreKey } from "../store/store.ts";
import { withTimeout } from "../timeout.ts";
import { CACHE_READ_TIMEOUT_MS, CACHE_WRITE_TIMEOUT_MS } from "./service/cache.ts";
import { DEFAULT_MAX_CACHED_PNG_BYTES } from "./service/screenshots.ts";

/** The MCP resource URI of a kept capture: shotline://captures/{id} */
export const CAPTURE_URI_TEMPLATE = "shotline://captures/{id}";

/** A kept capture as `read` returns it. */
export interface KeptCapture {
  bytes: Uint8Array;
  mediaType: string;
  /** file name for Content-Disposition, e.g. "example.com.png" */
  name: string;
  /** epoch ms */
  expiresAt: number;
  /** What the answer that kept it said of the capture (its JSON without the bytes); {} if none. */
  about: Record<string, unknown>;
}

/** What `keep` hands back: where the capture can be read, and what it is. */
export interface CaptureLink {
  id: string;
  uri: string;
  /** absolute HTTP URL: `${baseUrl}/api/captures/${id}` */
  url: string;
  mediaType: string;
  name: string;
  size: number;
  expiresAt: number;
}

export interface CaptureLinks {
  /**
   * Keeps `bytes` for the link TTL under a new unguessable id (>= 128 random bits, base64url).
   * Rejects with CaptureTooLargeToKeep past the size bound, and with the store's error (or a
   * TimeoutError) when the store fails: either way there is no link.
   */
  keep(
    capture: {
      bytes: Uint8Array;
      mediaType: string;
      name: string;
      about?: Record<string, unknown>;
    },
    baseUrl: string,
  ): Promise<CaptureLink>;
  /**
   * The kept capture, or null when unknown or expired (an id that is malformed is simply null).
   * Rejects when the store fails or is slow, so an outage is not mistaken for an expired link.
   */
  read(id: string): Promise<KeptCapture | null>;
  /**
   * Ends the link `id` before its TTL (its URL answers 404 from then on); an unknown or malformed
   * id is a no-op. Rejects when the store fails, like `read`.
   */
  forget(id: string): Promise<void>;
}

/**
 * Three times the capture cache's bound (DEFAULT_MAX_CACHED_PNG_BYTES): a full page at the size
 * cap of a dense site passes the cache's 8 MiB, and its link is what an agent needs most; a hostile
 * page still cannot fill the store with giant captures through MCP calls.
 */
export const MAX_KEPT_CAPTURE_BYTES = 3 * DEFAULT_MAX_CACHED_PNG_BYTES;

/** Refusal of `keep` for a capture past MAX_KEPT_CAPTURE_BYTES: it gets no link. */
export class CaptureTooLargeToKeep extends Error {
  constructor(readonly size: number, readonly maxBytes: number) {
    super(`a capture of ${size} bytes is over the ${maxBytes}-byte bound of capture links`);
    this.name = "CaptureTooLargeToKeep";
  }
}

// 18 bytes: 144 random bits, exactly 24 base64url characters (no padding, no partial last one).
const ID_BYTES = 18;
const ID_PATTERN = /^[A-Za-z0-9_-]{24}$/;
const URI_PATTERN = /^shotline:\/\/captures\/([A-Za-z0-9_-]{24})$/;
const ROOT = "capture_link";
// type/subtype with optional parameters: it becomes a Content-Type header as it is.
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.-]+=[\w.-]+)*$/;
// Long enough for any host name and extension; a Content-Disposition header stays small.
const MAX_NAME_LENGTH = 200;

/** Where a link's blob lives: its own root, so a purge of the capture cache leaves links be. */
function linkKey(id: string): StoreKey {
  return [ROOT, id];
}

/** A fresh id: random bits only, base64url. */
function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(ID_BYTES));
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/** `name` fit for a header: no control characters, quotes or path separators, bounded. */
function safeName(name: string): string {
  // deno-lint-ignore no-control-regex
  const cleaned = name.replace(/[\u0000-\u001f\u007f"\\/]/g, "_").trim();
  return cleaned.slice(0, MAX_NAME_LENGTH) || "capture";
}

/** The id in a capture URI (shotline://captures/{id}), or null when `uri` is not one. */
export function captureIdOf(uri: string): string | null {
  return URI_PATTERN.exec(uri)?.[1] ?? null;
}

/** The HTTP URL of the kept capture `id` for a service at `baseUrl`. */
export function captureUrlOf(baseUrl: string, id: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/api/captures/${id}`;
}

/** The capture links of `store`, each kept `ttlMs` by `clock`. */
export function createCaptureLinks(
  deps: { store: Store; clock: Clock; ttlMs: number; maxBytes?: number },
): CaptureLinks {
  const { store, clock, ttlMs, maxBytes = MAX_KEPT_CAPTURE_BYTES } = deps;
  return {
    async keep({ bytes, mediaType, name, about = {} }, baseUrl) {
      if (bytes.byteLength > maxBytes) throw new CaptureTooLargeToKeep(bytes.byteLength, maxBytes);
      if (!MEDIA_TYPE.test(mediaType)) throw new TypeError(`not a media type: ${mediaType}`);
      const id = newId();
      const kept = safeName(name);
      const expiresAt = clock.now() + ttlMs;
      const meta = { mediaType, name: kept, expiresAt, about };
      await withTimeout(
        store.setBlob(linkKey(id), { bytes, meta }, ttlMs),
        // The cache's bound is for its own entries; a larger link gets time in proportion.
        CACHE_WRITE_TIMEOUT_MS *
          Math.max(1, Math.ceil(bytes.byteLength / DEFAULT_MAX_CACHED_PNG_BYTES)),
        "capture link write",
      );
      return {
        id,
        uri: CAPTURE_URI_TEMPLATE.replace("{id}", id),
        url: captureUrlOf(baseUrl, id),
        mediaType,
        name: kept,
        size: bytes.byteLength,
        expiresAt,
      };
    },

    async read(id) {
      if (!ID_PATTERN.test(id)) return null;
      const blob = await withTimeout(
        store.getBlob(linkKey(id)),
        CACHE_READ_TIMEOUT_MS,
        "capture link read",
      );
      if (!blob) return null;
      const { mediaType, name, expiresAt, about } = blob.meta;
      // A record of another version of the service is unknown, not a crash.
      if (typeof mediaType !== "string" || !MEDIA_TYPE.test(mediaType)) return null;
      if (typeof name !== "string" || typeof expiresAt !== "number") return null;
      if (expiresAt <= clock.now()) return null;
      const said = typeof about === "object" && about !== null ? about : {};
      return {
        bytes: blob.bytes,
        mediaType,
        name,
        expiresAt,
        about: said as Record<string, unknown>,
      };
    },

    async forget(id) {
      if (!ID_PATTERN.test(id)) return;
      // The store deletes blobs by prefix only, below the key; so the link is replaced by an
      // empty record without a media type, which `read` answers as unknown, expiring at once.
      // Replacing a blob frees its old chunks on both backends.
      await withTimeout(
        store.setBlob(linkKey(id), { bytes: new Uint8Array(), meta: { forgotten: true } }, 1),
        CACHE_WRITE_TIMEOUT_MS,
        "capture link delete",
      );
    },
  };
}

/** The capture links of an app, from its config (CAPTURE_LINK_TTL_SECONDS). */
export function captureLinksOf(
  deps: { store: Store; clock: Clock; config: { CAPTURE_LINK_TTL_SECONDS: number } },
): CaptureLinks {
  const { store, clock, config } = deps;
  return createCaptureLinks({ store, clock, ttlMs: config.CAPTURE_LINK_TTL_SECONDS * 1000 });
}
