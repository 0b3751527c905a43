import { Redis } from "@upstash/redis";
import { concatBytes } from "../bytes.ts";
import type { Logger } from "../log.ts";
import type { BlobHead, Store, StoredBlob, StoreKey, WindowVerdict } from "./store.ts";
import type { Clock } from "../clock.ts";
import {
  COMMIT_BLOB_SCRIPT,
  COMPARE_AND_SET_SCRIPT,
  encodeKey,
  prefixesOf,
  redisKeys,
  SLIDING_WINDOW_SCRIPT,
} from "./upstash_layout.ts";

// Upstash caps one request at 10 MB (free and pay-as-you-go). A 1 MiB chunk travels as ~1.4 MB
// of base64, far below it, and one chunk is one bounded request in each direction.
const CHUNK_BYTES = 1024 * 1024;
// Chunk requests in flight at once for one blob: enough to overlap round trips, not a flood.
const CHUNK_PARALLELISM = 4;
// Chunks and heads outlive the logical expiry a little, like on KV, so a reader racing expiry
// finds every chunk; expiry itself is checked against the injected clock on read.
const EXPIRY_SLACK_MS = 60_000;
// A replaced version's chunks stay this long, so a reader holding the old head can finish.
const REPLACED_GRACE_MS = 30_000;
// Small commands: a store that has not answered by then counts as down (the caller degrades).
const DEFAULT_TIMEOUT_MS = 2_000;
// Chunk transfers carry up to ~1.4 MB each over the internet: more time, still bounded.
const DEFAULT_BULK_TIMEOUT_MS = 5_000;
// deleteBlobs removes this many blobs per transaction (bounded request and response sizes).
const DELETE_BATCH = 100;
// Error messages of the client embed the whole command (possibly MBs of chunk data): cut them.
const MAX_ERROR_TEXT = 200;

export interface UpstashStoreOptions {
  url: string;
  token: string;
  clock: Clock;
  log?: Logger;
  /** Prefix of every Redis key, so several deployments can share one database. */
  namespace?: string;
  timeoutMs?: number;
  bulkTimeoutMs?: number;
}

/** A store call that failed or timed out; the message never contains stored data. */
export class StoreUnavailableError extends Error {
  constructor(operation: string, cause: unknown) {
    const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super(`upstash-redis ${operation} failed: ${reason.slice(0, MAX_ERROR_TEXT)}`);
    this.name = "StoreUnavailableError";
  }
}

/**
 * A REST client of Upstash as the service uses it (the store and the job queue): strings back
 * as they were stored, one request per call, each bounded by `timeoutMs`.
 */
export function upstashClient(options: { url: string; token: string; timeoutMs: number }): Redis {
  return new Redis({
    url: options.url,
    token: options.token,
    // Raw strings back: we parse JSON ourselves and chunks are base64 text, never reinterpreted.
    automaticDeserialization: false,
    // Every value we store is ASCII base64 or JSON text (valid UTF-8): the optional base64
    // response layer would only add a third more bytes and a decode pass to every cache hit.
    responseEncoding: false,
    enableTelemetry: false,
    // On by default since 1.3x: it would batch parallel chunk writes into one request and
    // break the per-request size bound that chunking exists for.
    enableAutoPipelining: false,
    // A fresh timer per request: a store that is down or stalled must not hang a request.
    signal: () => AbortSignal.timeout(options.timeoutMs),
    // One quick retry for a dropped keep-alive connection; more would outlast the timeout.
    retry: { retries: 1, backoff: () => 50 },
  });
}

/** The Store contract on Upstash Redis (REST), shared by every instance of the service. */
export function createUpstashStore(options: UpstashStoreOptions): Store {
  const { clock, log } = options;
  const client = (timeoutMs: number) =>
    upstashClient({ url: options.url, token: options.token, timeoutMs });
  const redis = client(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const bulk = client(options.bulkTimeoutMs ?? DEFAULT_BULK_TIMEOUT_MS);
  const slidingWindow = redis.createScript<[number, number, string]>(SLIDING_WINDOW_SCRIPT);
  const commitBlob = redis.createScript<string | null>(COMMIT_BLOB_SCRIPT);
  const compareAndSet = redis.createScript<number>(COMPARE_AND_SET_SCRIPT);

  const keys = redisKeys(options.namespace ?? "shotline:");
  const chunkKeys = (head: BlobHead) =>
    Array.from({ length: head.chunks }, (_, n) => keys.chunk(head.version, n));

  async function attempt<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw new StoreUnavailableError(operation, error);
    }
  }

  async function readChunks(head: BlobHead): Promise<Uint8Array | null> {
    const parts = await mapLimited(chunkKeys(head), (key) => bulk.get<string>(key));
    if (parts.some((part) => part === null)) return null;
    const decoded = parts.map((part) => Uint8Array.fromBase64(part as string));
    const size = decoded.reduce((sum, part) => sum + part.byteLength, 0);
    return size === head.size ? concatBytes(decoded) : null;
  }

  async function retire(previous: BlobHead) {
    // Best effort: if this fails, the old chunks still expire with their own PX.
    try {
      const pipeline = redis.pipeline();
      for (const key of chunkKeys(previous)) pipeline.pexpire(key, REPLACED_GRACE_MS);
      if (previous.chunks > 0) await pipeline.exec();
    } catch (error) {
      log?.warn("store: could not retire replaced blob chunks", {
        error: new StoreUnavailableError("retire", error).message,
      });
    }
  }

  return {
    kind: "upstash-redis",

    getValue<T>(key: StoreKey) {
      return attempt("getValue", async () => {
        const raw = await redis.get<string>(keys.value(key));
        if (raw === null) return null;
        const record = JSON.parse(raw) as { value: T; expiresAt: number };
        return record.expiresAt > clock.now() ? record.value : null;
      });
    },

    setValue(key, value, ttlMs) {
      return attempt("setValue", async () => {
        const record = JSON.stringify({ value, expiresAt: clock.now() + ttlMs });
        await redis.set(keys.value(key), record, { px: Math.max(1, Math.ceil(ttlMs)) });
      });
    },

    getVersioned<T>(key: StoreKey) {
      return attempt("getVersioned", async () => {
        const raw = await redis.get<string>(keys.value(key));
        if (raw === null) return { value: null, version: null };
        const record = JSON.parse(raw) as { value: T; expiresAt: number };
        // The stored text is its own version: any write changes it (expiresAt moves on).
        return { value: record.expiresAt > clock.now() ? record.value : null, version: raw };
      });
    },

    setValueIfVersion(key, value, version, ttlMs) {
      return attempt("setValueIfVersion", async () => {
        const record = JSON.stringify({ value, expiresAt: clock.now() + ttlMs });
        const set = await compareAndSet.exec(
          [keys.value(key)],
          [version ?? "", record, String(Math.max(1, Math.ceil(ttlMs)))],
        );
        return set === 1;
      });
    },

    getBlob(key) {
      return attempt("getBlob", async () => {
        // A replacement retires the old chunks; if we raced past their grace, read once more.
        for (let round = 0; round < 2; round++) {
          const raw = await redis.get<string>(keys.head(encodeKey(key)));
          if (raw === null) return null;
          const head = JSON.parse(raw) as BlobHead;
          if (head.expiresAt <= clock.now()) return null;
          const bytes = await readChunks(head);
          if (bytes) return { bytes, meta: head.meta };
        }
        return null;
      });
    },

    setBlob(key, blob: StoredBlob, ttlMs) {
      return attempt("setBlob", async () => {
        const encoded = encodeKey(key);
        const lifetime = Math.max(1, Math.ceil(ttlMs)) + EXPIRY_SLACK_MS;
        const head: BlobHead = {
          version: crypto.randomUUID(),
          chunks: Math.ceil(blob.bytes.byteLength / CHUNK_BYTES),
          size: blob.bytes.byteLength,
          meta: blob.meta,
          expiresAt: clock.now() + ttlMs,
        };
        // Chunks first, each with its own expiry, under a version nobody reads yet...
        await mapLimited(chunkKeys(head), (chunk, i) => {
          const part = blob.bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES);
          return bulk.set(chunk, part.toBase64(), { px: lifetime });
        });
        // ...then the head switches atomically, together with the prefix indexes.
        const previousRaw = await commitBlob.exec(
          [keys.head(encoded), ...prefixesOf(encoded).map(keys.index)],
          [
            JSON.stringify(head),
            String(lifetime),
            encoded,
            String(head.expiresAt),
            String(clock.now()),
          ],
        );
        const previous = previousRaw ? JSON.parse(previousRaw) as BlobHead : null;
        if (previous && previous.version !== head.version) await retire(previous);
      });
    },

    deleteBlobs(prefix) {
      return attempt("deleteBlobs", async () => {
        const index = keys.index(encodeKey(prefix));
        let deleted = 0;
        // Each round removes what it reads from the index, so the loop ends once it is empty.
        for (;;) {
          const members = await redis.zrange<string[]>(index, 0, DELETE_BATCH - 1);
          if (members.length === 0) return deleted;
          const tx = redis.multi();
          for (const member of members) tx.getdel(keys.head(member));
          const byLevel = new Map<string, string[]>();
          for (const member of members) {
            for (const level of prefixesOf(member)) {
              byLevel.set(level, [...byLevel.get(level) ?? [], member]);
            }
          }
          for (const [level, levelMembers] of byLevel) tx.zrem(keys.index(level), ...levelMembers);
          const results = await tx.exec<unknown[]>();
          const chunks: string[] = [];
          for (const raw of results.slice(0, members.length)) {
            if (typeof raw !== "string") continue;
            const head = JSON.parse(raw) as BlobHead;
            if (head.expiresAt > clock.now()) deleted++;
            chunks.push(...chunkKeys(head));
          }
          for (let i = 0; i < chunks.length; i += DELETE_BATCH) {
            await redis.del(...chunks.slice(i, i + DELETE_BATCH));
          }
        }
      });
    },

    hitWindow(key, limit, windowMs): Promise<WindowVerdict> {
      return attempt("hitWindow", async () => {
        const now = clock.now();
        const member = crypto.randomUUID();
        const [allowed, hits, oldest] = await slidingWindow.exec(
          [keys.window(key)],
          [String(now), String(now - windowMs), String(limit), member, String(windowMs)],
        );
        return {
          allowed: allowed === 1,
          limit,
          remaining: Math.max(0, limit - hits),
          resetAt: Number(oldest) + windowMs,
          ...(allowed === 1 ? { hit: { at: now, id: member } } : {}),
        };
      });
    },

    refundWindow(key, hit) {
      // One member per counted hit: removing it is atomic, and a second removal finds nothing.
      return attempt("refundWindow", async () => {
        await redis.zrem(keys.window(key), hit.id);
      });
    },

    close() {
      // Plain HTTP requests: nothing to release.
      return Promise.resolve();
    },
  };
}

async function mapLimited<T, R>(
  items: readonly T[],
  run: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHUNK_PARALLELISM, items.length) }, worker));
  return results;
}
