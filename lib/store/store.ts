/** Keys are short string paths; each backend maps them onto its own key space. */
export type StoreKey = readonly string[];

/** A binary value with small JSON metadata, stored torn-free (chunks, then an atomic head). */
export interface StoredBlob {
  bytes: Uint8Array;
  meta: Record<string, unknown>;
}

/**
 * How both backends record a chunked blob: readers fetch this head, then `chunks` chunks under
 * `version`, and check their total against `size` (a mismatch means a replacement raced them).
 */
export interface BlobHead {
  version: string;
  chunks: number;
  size: number;
  meta: Record<string, unknown>;
  expiresAt: number;
}

/** Outcome of one hit on a sliding-window counter. */
export interface WindowVerdict {
  allowed: boolean;
  limit: number;
  /** Hits still allowed in the window after this one. */
  remaining: number;
  /** Epoch ms at which the oldest counted hit leaves the window. */
  resetAt: number;
  /** The hit as counted (only when allowed), to take it back with `refundWindow`. */
  hit?: WindowHit;
}

/** One counted hit of a window: when it was counted, and the backend's id for it (if any). */
export interface WindowHit {
  at: number;
  id: string;
}

/** A value read for a compare-and-set: `version` is opaque, null when nothing is stored. */
export interface VersionedValue<T> {
  /** The value, or null when there is none or it expired. */
  value: T | null;
  version: string | null;
}

/**
 * The one storage contract behind the capture cache, the post cache and the rate limiter.
 * Expiry is checked against the injected clock on read, because backend TTLs are best effort.
 */
export interface Store {
  readonly kind: "deno-kv" | "upstash-redis";
  getValue<T>(key: StoreKey): Promise<T | null>;
  setValue(key: StoreKey, value: unknown, ttlMs: number): Promise<void>;
  /** A value with its version, for `setValueIfVersion`. */
  getVersioned<T>(key: StoreKey): Promise<VersionedValue<T>>;
  /**
   * Sets `key` only if it still holds the version read (null: nothing was stored), in one atomic
   * step; false when another writer came first (read again and retry).
   */
  setValueIfVersion(
    key: StoreKey,
    value: unknown,
    version: string | null,
    ttlMs: number,
  ): Promise<boolean>;
  getBlob(key: StoreKey): Promise<StoredBlob | null>;
  setBlob(key: StoreKey, blob: StoredBlob, ttlMs: number): Promise<void>;
  /** Deletes every blob whose key starts with `prefix`; returns how many were deleted. */
  deleteBlobs(prefix: StoreKey): Promise<number>;
  /** Counts a hit for `key` unless `limit` hits already fall within the last `windowMs`. */
  hitWindow(key: StoreKey, limit: number, windowMs: number): Promise<WindowVerdict>;
  /**
   * Takes back one hit `hitWindow` counted, atomically: the count never goes below zero, and a
   * hit that already left the window is not taken back. Callers refund a hit at most once.
   */
  refundWindow(key: StoreKey, hit: WindowHit, windowMs: number): Promise<void>;
  close(): Promise<void>;
}
