/**
 * The image format in the capture cache: a jpeg or webp record keeps its format beside its bytes,
 * a png record stays what it always was, and a record written before the format was kept is read
 * by its bytes' magic number.
 */
import assert from "node:assert/strict";
import { createCaptureCache, jobKey } from "../../../lib/capture/service/cache.ts";
import type { CaptureJob, ImageFormat } from "../../../lib/capture/mod.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { createKvStore } from "../../../lib/store/deno_kv.ts";
import type { Store } from "../../../lib/store/store.ts";
import { storeClock } from "../../../testing/store_backends.ts";

const JOB: CaptureJob = {
  url: "https://example.com/",
  deviceType: "desktop",
  colorScheme: "light",
};
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
// Each format's magic number, padded: what the cache reads of a record without its format.
const BYTES: Record<ImageFormat, Uint8Array> = {
  png: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
  jpeg: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0]),
  webp: new Uint8Array([...ascii("RIFF"), 4, 0, 0, 0, ...ascii("WEBP")]),
};
const FORMATS = Object.keys(BYTES) as ImageFormat[];

async function withStore(run: (store: Store) => Promise<void>): Promise<void> {
  const store = createKvStore(await Deno.openKv(":memory:"), storeClock());
  try {
    await run(store);
  } finally {
    await store.close();
  }
}

Deno.test("each format round-trips; a png record holds no format field, as before", async () => {
  await withStore(async (store) => {
    const cache = createCaptureCache({ store, log: createMemoryLogger(), ttlMs: 60_000 });
    for (const format of FORMATS) {
      const key = await jobKey({ ...JOB, url: `https://example.com/${format}` });
      const capture = {
        image: BYTES[format],
        format,
        strategy: "chromium-local",
        capturedAt: 1,
        targetStatus: 200,
      };
      await cache.set(key, capture);
      const cached = await cache.get(key);
      assert.equal(cached?.format, format);
      assert.deepEqual(cached?.image, BYTES[format]);
      const meta = (await store.getBlob(key.store))?.meta;
      assert.equal(meta?.format, format === "png" ? undefined : format, `${format} record`);
    }
  });
});

Deno.test("a record written before the format was kept is read by its magic number", async () => {
  await withStore(async (store) => {
    const cache = createCaptureCache({ store, log: createMemoryLogger(), ttlMs: 60_000 });
    const key = await jobKey(JOB);
    for (const format of FORMATS) {
      // The old record's shape: the image as the blob's bytes, no format among its fields.
      await store.setBlob(key.store, {
        bytes: BYTES[format],
        meta: { url: JOB.url, strategy: "chromium-local", capturedAt: 1, targetStatus: 200 },
      }, 60_000);
      const cached = await cache.get(key);
      assert.equal(cached?.format, format);
      assert.deepEqual(cached?.image, BYTES[format]);
      assert.equal(cached?.strategy, "chromium-local");
    }
  });
});
