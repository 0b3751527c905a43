/**
 * Object storage for results: bytes written under a caller's key and served by URL. Two backends
 * (lib/storage/open.ts picks one): an S3-compatible bucket, or the service's own store through
 * capture links when no bucket is configured.
 */

/** How an object is described when written. */
export interface ObjectMeta {
  contentType: string;
  /** Sent back as the Content-Disposition of a download, e.g. `attachment; filename="a.png"`. */
  contentDisposition?: string;
}

/** An object as `get` returns it. */
export interface StoredObject {
  bytes: Uint8Array;
  contentType: string;
}

/** What `urlFor` needs besides the key. */
export interface ObjectUrlOptions {
  /** How long a signed URL works (S3: 1 s to 7 days); public URLs do not expire. */
  expiresInSeconds: number;
  /** This service's own address, for URLs it serves itself (the store fallback). */
  baseUrl: string;
}

/** Where results are written and how they are read back and linked to. */
export interface ObjectStorage {
  /** "s3": an S3-compatible bucket; "store": the shared store, served at /api/captures/{id}. */
  readonly kind: "s3" | "store";
  /** The largest object `put` takes (ObjectTooLarge past it); absent when it has no bound. */
  readonly maxObjectBytes?: number;
  /** Writes `bytes` under `key`, replacing what was there. */
  put(key: string, bytes: Uint8Array, meta: ObjectMeta): Promise<void>;
  /** The object under `key`, or null when there is none (or it expired). */
  get(key: string): Promise<StoredObject | null>;
  /** Removes the object under `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** A URL at which anyone holding it can GET the object, without credentials. */
  urlFor(key: string, options: ObjectUrlOptions): Promise<string>;
  /** Resolves when the backend answers (S3: HEAD bucket), rejects with why not. */
  check(): Promise<void>;
  /** Releases the backend's connections (not the shared store, which its opener closes). */
  close(): Promise<void>;
}

/** S3 limits a key to 1024 bytes of UTF-8; the store fallback keeps the same rule. */
export const MAX_OBJECT_KEY_BYTES = 1024;

/** A key no backend accepts: empty, too long, with a leading slash or control characters. */
export class InvalidObjectKey extends Error {
  constructor(readonly reason: string) {
    super(`invalid object key: ${reason}`);
    this.name = "InvalidObjectKey";
  }
}

/** Refusal of `put` for bytes past the backend's bound: nothing was written. */
export class ObjectTooLarge extends Error {
  constructor(readonly size: number, readonly maxBytes: number) {
    super(`an object of ${size} bytes is over the ${maxBytes}-byte bound of this storage`);
    this.name = "ObjectTooLarge";
  }
}

/** `urlFor` of a key with no object, where the backend has to know it (the store fallback). */
export class ObjectNotFound extends Error {
  constructor(readonly key: string) {
    super(`no object under key ${JSON.stringify(key)}`);
    this.name = "ObjectNotFound";
  }
}

/**
 * A call the backend refused or did not answer: `code` is its error name (SignatureDoesNotMatch,
 * NoSuchBucket, TimeoutError...), the message says what to check. Never carries a secret.
 */
export class ObjectStorageFailed extends Error {
  constructor(
    readonly operation: "put" | "get" | "delete" | "urlFor" | "check",
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "ObjectStorageFailed";
  }
}

/** Throws InvalidObjectKey unless `key` is one every backend stores as it is. */
export function checkObjectKey(key: string): void {
  if (key.length === 0) throw new InvalidObjectKey("empty");
  if (key.startsWith("/")) throw new InvalidObjectKey("starts with /");
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) throw new InvalidObjectKey("control characters");
  const size = new TextEncoder().encode(key).byteLength;
  if (size > MAX_OBJECT_KEY_BYTES) {
    throw new InvalidObjectKey(`${size} bytes, over ${MAX_OBJECT_KEY_BYTES}`);
  }
}
