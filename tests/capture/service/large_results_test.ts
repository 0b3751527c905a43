/**
 * Captures past the cache's bound (8 MiB) are kept in object storage and the cache holds a
 * reference: a later request is a hit with the same bytes and no second render, on both store
 * backends with the store spill and on a real S3-compatible server. An object that is gone or
 * unreadable is a miss; a capture under the bound never touches the storage.
 */
import assert from "node:assert/strict";
import {
  type CaptureCache,
  createCaptureCache,
  jobKey,
} from "../../../lib/capture/service/cache.ts";
import {
  createScreenshotService,
  DEFAULT_MAX_CACHED_PNG_BYTES,
  type ScreenshotServiceOptions,
} from "../../../lib/capture/service/screenshots.ts";
import { createCaptureLinks } from "../../../lib/capture/links.ts";
import type { CaptureJob } from "../../../lib/capture/types.ts";
import type { Clock } from "../../../lib/clock.ts";
import { parseConfig } from "../../../lib/config.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { createS3Storage } from "../../../lib/storage/s3.ts";
import { s3SettingsOf } from "../../../lib/storage/open.ts";
import { createStoreSpill } from "../../../lib/storage/spill.ts";
import type { ObjectStorage } from "../../../lib/storage/types.ts";
import { createKvStore } from "../../../lib/store/deno_kv.ts";
import type { Store } from "../../../lib/store/store.ts";
import { startS3Server } from "../../../testing/s3_server.ts";
import { solidCapturer } from "../../../testing/solid_capturer.ts";
import { noise, STORE_BACKENDS, storeClock } from "../../../testing/store_backends.ts";

const JOB: CaptureJob = {
  url: "https://example.com/long",
  deviceType: "desktop",
  colorScheme: "light",
};
// Just past the cache's bound, like a dense 3840 px full page.
const LARGE = 9 * 1000 * 1000;
const TTL_MS = 60 * 60 * 1000;

/** A solidCapturer whose images are `size` bytes of noise, different at every render. */
function sizedCapturer(size: number) {
  const capturer = solidCapturer();
  const capture = capturer.capture.bind(capturer);
  capturer.capture = async (job, signal) => {
    const result = await capture(job, signal);
    return { ...result, image: noise(size, capturer.jobs.length) };
  };
  return capturer;
}

/** `storage` with a record of the keys written and deleted through it. */
function recorded(storage: ObjectStorage) {
  const puts: string[] = [];
  const deletes: string[] = [];
  const spied: ObjectStorage = {
    ...storage,
    put: (key, bytes, meta) => (puts.push(key), storage.put(key, bytes, meta)),
    delete: (key) => (deletes.push(key), storage.delete(key)),
  };
  return Object.assign(spied, { puts, deletes });
}

/** The store spill of `store`, as the app builds it without a bucket. */
function spillOf(store: Store, clock: Clock, maxBytes?: number): ObjectStorage {
  const links = createCaptureLinks({ store, clock, ttlMs: TTL_MS });
  return createStoreSpill({ store, links, ttlMs: TTL_MS, maxBytes });
}

/** A screenshot service on `store`'s cache, keeping large captures in `storage`. */
function serviceOn(
  deps: { store: Store; storage: ObjectStorage; clock: Clock; size?: number },
  overrides: Partial<ScreenshotServiceOptions> = {},
) {
  const { store, clock, size = LARGE } = deps;
  const capturer = sizedCapturer(size);
  const log = createMemoryLogger();
  const cache = createCaptureCache({ store, log, ttlMs: TTL_MS });
  const storage = recorded(deps.storage);
  const service = createScreenshotService({
    capturer,
    cache,
    log,
    clock,
    maxConcurrent: 2,
    queueBudgetMs: 15_000,
    hardTimeoutMs: 60_000,
    largeResults: storage,
    ...overrides,
  });
  return { service, capturer, cache, storage, log };
}

/** The object key the cache entry of JOB points to, or undefined when it holds its bytes. */
async function referenceOf(cache: CaptureCache): Promise<string | undefined> {
  return (await cache.get(await jobKey(JOB)))?.storedImage?.storageKey;
}

/** A large capture is kept, served from storage, replaced by forceRefresh, then purged. */
async function checkRoundTrip(
  deps: { store: Store; storage: ObjectStorage; clock: Clock & { advance(ms: number): void } },
) {
  const { service, capturer, cache, storage } = serviceOn(deps);
  const first = await service.take(JOB);
  assert.equal(first.cached, false);
  assert.equal(first.image.byteLength, LARGE);
  assert.ok(LARGE > DEFAULT_MAX_CACHED_PNG_BYTES);
  await service.writesSettled();
  assert.equal(storage.puts.length, 1);
  assert.match(storage.puts[0], /^captures\/[0-9a-f]{64}\.[0-9a-f]{32}\.png$/);
  assert.equal(await referenceOf(cache), storage.puts[0]);

  deps.clock.advance(7_000);
  const hit = await service.take(JOB);
  assert.equal(hit.cached, true);
  assert.equal(hit.age, 7);
  assert.equal(hit.format, "png");
  assert.equal(hit.strategy, "test-solid");
  assert.equal(hit.storedImage, undefined, "the reference is not part of the answer");
  assert.deepEqual(hit.image, first.image);
  assert.equal(capturer.jobs.length, 1, "no second render");

  // A refresh writes a new object, points the entry to it, and deletes the replaced one.
  const refreshed = await service.take(JOB, { forceRefresh: true });
  assert.equal(refreshed.cached, false);
  await service.writesSettled();
  assert.equal(storage.puts.length, 2);
  assert.deepEqual(storage.deletes, [storage.puts[0]]);
  assert.equal(await deps.storage.get(storage.puts[0]), null);
  assert.equal(await referenceOf(cache), storage.puts[1]);
  const after = await service.take(JOB);
  assert.equal(after.cached, true);
  assert.deepEqual(after.image, refreshed.image);
  assert.notDeepEqual(after.image.subarray(0, 64), first.image.subarray(0, 64));

  // A purge removes the reference with the entry: the next request renders.
  assert.equal(await cache.purgeUrl(JOB.url), 1);
  assert.equal((await service.take(JOB)).cached, false);
  assert.equal(capturer.jobs.length, 3);
  await service.writesSettled();
}

for (const backend of STORE_BACKENDS.filter((b) => b.name !== "deno-kv file")) {
  Deno.test(`a capture past the cache's bound is a later hit from the store spill (${backend.name})`, async () => {
    const clock = storeClock();
    await using opened = await backend.open(clock);
    await checkRoundTrip({ store: opened.store, storage: spillOf(opened.store, clock), clock });
  });
}

Deno.test("a capture past the cache's bound is a later hit from an S3 bucket", async () => {
  await using server = await startS3Server();
  const clock = storeClock();
  const settings = s3SettingsOf(parseConfig(server.env({ S3_PREFIX: "shotline/" })))!;
  // The server signs and checks at its own time: the bucket gets the real clock.
  const storage = createS3Storage({ settings, clock: { now: () => Date.now() } });
  const store = createKvStore(await Deno.openKv(":memory:"), clock);
  try {
    await checkRoundTrip({ store, storage, clock });
  } finally {
    await storage.close();
    await store.close();
  }
});
