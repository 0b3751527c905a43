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
  type ScreenshotService,
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
import { eventually } from "../../../testing/wait.ts";
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
  const gets: string[] = [];
  const deletes: string[] = [];
  const spied: ObjectStorage = {
    ...storage,
    put: (key, bytes, meta) => (puts.push(key), storage.put(key, bytes, meta)),
    get: (key) => (gets.push(key), storage.get(key)),
    delete: (key) => (deletes.push(key), storage.delete(key)),
  };
  return Object.assign(spied, { puts, gets, deletes });
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

/**
 * Waits until every render's write has ended and its flight is gone, so the next request is
 * answered by the store, not by the finished render still held in memory.
 */
async function settled(service: ScreenshotService): Promise<void> {
  await service.writesSettled();
  await eventually(() => service.stats().flights === 0, "the flights ended", { intervalMs: 0 });
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
  await settled(service);
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
  assert.deepEqual(storage.gets, [storage.puts[0]], "read back from the storage");

  // A refresh writes a new object, points the entry to it, and deletes the replaced one.
  const refreshed = await service.take(JOB, { forceRefresh: true });
  assert.equal(refreshed.cached, false);
  await settled(service);
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
  await settled(service);
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

/** A service on an in-memory Deno KV with its spill; `size`-byte captures past a 1000-byte bound. */
async function smallBoundService(options: { size: number; spillMaxBytes?: number }) {
  const clock = storeClock();
  const opened = await STORE_BACKENDS[0].open(clock);
  const storage = spillOf(opened.store, clock, options.spillMaxBytes);
  const parts = serviceOn({ store: opened.store, storage, clock, size: options.size }, {
    maxCachedBytes: 1000,
  });
  return {
    ...parts,
    store: opened.store,
    spill: storage,
    [Symbol.asyncDispose]: () => opened[Symbol.asyncDispose](),
  };
}

Deno.test("a reference whose object is gone is a miss: rendered again, then kept anew", async () => {
  await using t = await smallBoundService({ size: 5000 });
  await t.service.take(JOB);
  await settled(t.service);
  await t.spill.delete((await referenceOf(t.cache))!);

  const again = await t.service.take(JOB);
  assert.equal(again.cached, false);
  assert.equal(t.capturer.jobs.length, 2);
  const warning = t.log.lines.find((l) =>
    l.msg === "cached capture's object is gone; rendering again"
  );
  assert.equal(warning?.level, "warn");
  assert.equal(warning?.target, "https://example.com", "the origin only, as every capture log");
  await settled(t.service);
  const next = await t.service.take(JOB);
  assert.equal(next.cached, true);
  assert.deepEqual(next.image, again.image);
});

Deno.test("a storage that fails on read is a miss with a warning, not a failed request", async () => {
  await using t = await smallBoundService({ size: 5000 });
  await t.service.take(JOB);
  await settled(t.service);
  t.storage.get = () => Promise.reject(new Error("bucket unreachable"));
  const again = await t.service.take(JOB);
  assert.equal(again.cached, false);
  assert.equal(again.image.byteLength, 5000);
  assert.ok(
    t.log.lines.some((l) => l.msg === "cached capture's object read failed; rendering again"),
  );
});

Deno.test("a capture under the bound is cached as it is: nothing is written to the storage", async () => {
  await using t = await smallBoundService({ size: 1000 });
  await t.service.take(JOB);
  await settled(t.service);
  assert.equal((await t.service.take(JOB)).cached, true);
  assert.deepEqual(t.storage.puts, []);
  assert.equal(await referenceOf(t.cache), undefined);
  assert.equal((await t.store.getBlob((await jobKey(JOB)).store))?.bytes.byteLength, 1000);
});

Deno.test("a capture past the storage's own bound too is served only, as before", async () => {
  await using t = await smallBoundService({ size: 5000, spillMaxBytes: 4000 });
  assert.equal((await t.service.take(JOB)).cached, false);
  await settled(t.service);
  assert.equal((await t.service.take(JOB)).cached, false);
  await settled(t.service);
  assert.equal(t.capturer.jobs.length, 2);
  assert.deepEqual(t.storage.puts, [], "refused before any upload");
  const warning = t.log.lines.find((l) =>
    l.msg === "capture too large to cache or store; served only"
  );
  assert.equal(warning?.bytes, 5000);
  assert.equal(warning?.maxObjectBytes, 4000);
});

Deno.test("a reference record nests its fields, so a version without references reads a miss", async () => {
  await using t = await smallBoundService({ size: 5000 });
  await t.service.take(JOB);
  await settled(t.service);
  const record = await t.store.getBlob((await jobKey(JOB)).store);
  assert.equal(record?.bytes.byteLength, 0);
  assert.equal(record?.meta.url, JOB.url);
  assert.equal(record?.meta.strategy, undefined, "what older versions require");
  assert.deepEqual(record?.meta.storedImage, {
    storageKey: t.storage.puts[0],
    bytes: 5000,
    contentType: "image/png",
  });
  assert.equal((record?.meta.fields as { strategy?: string }).strategy, "test-solid");
});
