import { readCapped } from "../bytes.ts";
import type { BlobHead, Store, StoredBlob, StoreKey } from "./store.ts";
import type { Clock } from "../clock.ts";
import { createKvWindow, refundKvWindow } from "./kv_window.ts";

// KV values are capped at 64 KiB; leave room for the key and encoding overhead.
const CHUNK_BYTES = 60_000;
// Old chunks outlive their head a little, so a reader that raced a replacement can finish.
const EXPIRY_SLACK_MS = 60_000;

interface ValueRecord {
  value: unknown;
  expiresAt: number;
}

// The KV handle behind each store, so the job queue can share it (one handle per database).
const KV_HANDLES = new WeakMap<Store, Deno.Kv>();

/** The Deno KV handle behind a store made by createKvStore, or null for any other store. */
export function kvHandleOf(store: Store): Deno.Kv | null {
  return KV_HANDLES.get(store) ?? null;
}

/** Opens a Deno KV store at `path` (`:memory:`, a file, a KV Connect URL, or Deno's default). */
export async function openKvStore(path: string | undefined, clock: Clock): Promise<Store> {
  const kv = await Deno.openKv(path);
  return createKvStore(kv, clock);
}

/** The Store contract on an open Deno KV handle; closing the store closes the handle. */
export function createKvStore(kv: Deno.Kv, clock: Clock): Store {
  const valueKey = (key: StoreKey) => ["value", ...key];
  const headKey = (key: StoreKey) => ["blob", ...key];
  const chunkPrefix = (version: string) => ["blob_chunk", version];

  async function deleteChunks(version: string) {
    for await (const entry of kv.list({ prefix: chunkPrefix(version) })) {
      await kv.delete(entry.key);
    }
  }

  async function readChunks(head: BlobHead): Promise<Uint8Array | null> {
    let count = 0;
    async function* chunks() {
      for await (const entry of kv.list<Uint8Array>({ prefix: chunkPrefix(head.version) })) {
        count++;
        yield entry.value;
      }
    }
    // Capped at the head's size: chunks that disagree with their head are refused unbuffered.
    const bytes = await readCapped(chunks(), head.size);
    return bytes && count === head.chunks && bytes.byteLength === head.size ? bytes : null;
  }

  const store: Store = {
    kind: "deno-kv",

    async getValue<T>(key: StoreKey) {
      const entry = await kv.get<ValueRecord>(valueKey(key));
      if (!entry.value || entry.value.expiresAt <= clock.now()) return null;
      return entry.value.value as T;
    },

    async setValue(key, value, ttlMs) {
      const record: ValueRecord = { value, expiresAt: clock.now() + ttlMs };
      await kv.set(valueKey(key), record, { expireIn: ttlMs });
    },

    async getVersioned<T>(key: StoreKey) {
      const entry = await kv.get<ValueRecord>(valueKey(key));
      const live = entry.value && entry.value.expiresAt > clock.now();
      return { value: live ? entry.value!.value as T : null, version: entry.versionstamp };
    },

    async setValueIfVersion(key, value, version, ttlMs) {
      const record: ValueRecord = { value, expiresAt: clock.now() + ttlMs };
      const { ok } = await kv.atomic()
        .check({ key: valueKey(key), versionstamp: version })
        .set(valueKey(key), record, { expireIn: ttlMs })
        .commit();
      return ok;
    },

    async getBlob(key) {
      // A replacement may delete the chunks between our head read and chunk read: retry once.
      for (let attempt = 0; attempt < 2; attempt++) {
        const head = await kv.get<BlobHead>(headKey(key));
        if (!head.value || head.value.expiresAt <= clock.now()) return null;
        const bytes = await readChunks(head.value);
        if (bytes) return { bytes, meta: head.value.meta };
      }
      return null;
    },

    async setBlob(key, blob: StoredBlob, ttlMs) {
      const version = crypto.randomUUID();
      const expireIn = ttlMs + EXPIRY_SLACK_MS;
      const chunks = Math.max(1, Math.ceil(blob.bytes.byteLength / CHUNK_BYTES));
      await Promise.all(
        Array.from({ length: chunks }, (_, i) =>
          kv.set(
            [...chunkPrefix(version), i],
            blob.bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES),
            { expireIn },
          )),
      );
      const previous = await kv.get<BlobHead>(headKey(key));
      const head: BlobHead = {
        version,
        chunks,
        size: blob.bytes.byteLength,
        meta: blob.meta,
        expiresAt: clock.now() + ttlMs,
      };
      // The head switches only after every chunk is durable: readers see old or new, never a mix.
      await kv.set(headKey(key), head, { expireIn });
      if (previous.value && previous.value.version !== version) {
        await deleteChunks(previous.value.version);
      }
    },

    async deleteBlobs(prefix) {
      let deleted = 0;
      for await (const entry of kv.list<BlobHead>({ prefix: headKey(prefix) })) {
        await kv.delete(entry.key);
        await deleteChunks(entry.value.version);
        if (entry.value.expiresAt > clock.now()) deleted++;
      }
      return deleted;
    },

    hitWindow: createKvWindow(kv, clock),

    refundWindow: (key, hit, windowMs) => refundKvWindow(kv, { key, hit, windowMs, clock }),

    close() {
      kv.close();
      return Promise.resolve();
    },
  };
  KV_HANDLES.set(store, kv);
  return store;
}
