/** Page metadata in the capture cache: the favicon's bytes kept, a record from before read as none. */
import assert from "node:assert/strict";
import { createCaptureCache, jobKey } from "../../../lib/capture/service/cache.ts";
import { MAX_ICON_BYTES } from "../../../lib/capture/page/icon_bytes.ts";
import type { CaptureJob, PageMetadata } from "../../../lib/capture/types.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { createKvStore } from "../../../lib/store/deno_kv.ts";
import { storeClock } from "../../../testing/store_backends.ts";

const JOB: CaptureJob = {
  url: "https://example.com/",
  deviceType: "desktop",
  colorScheme: "light",
};
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

/** The largest page metadata a capture carries: every text at its cap, the largest icon. */
function largestPage(): PageMetadata {
  const icon = `<svg xmlns="http://www.w3.org/2000/svg">${
    "<!-- - -->".repeat(MAX_ICON_BYTES / 10 - 5)
  }</svg>`;
  return {
    title: "t".repeat(300),
    description: "d".repeat(300),
    lang: "l".repeat(300),
    themeColor: "c".repeat(300),
    favicon: `https://example.com/${"f".repeat(2000)}`,
    faviconData: `data:image/svg+xml;base64,${btoa(icon)}`,
    ogImage: `https://example.com/${"o".repeat(2000)}`,
  };
}

Deno.test("the largest page metadata round-trips through Deno KV with its capture", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = createKvStore(kv, storeClock());
  const log = createMemoryLogger();
  try {
    const cache = createCaptureCache({ store, log, ttlMs: 60_000 });
    const key = await jobKey(JOB);
    const page = largestPage();
    await cache.set(key, {
      image: PNG,
      format: "png",
      strategy: "chromium-local",
      capturedAt: 1,
      targetStatus: 200,
      page,
    });
    assert.deepEqual(log.lines.filter((l) => l.level === "warn"), [], "the write did not fail");
    const cached = await cache.get(key);
    assert.deepEqual(cached?.page, page);
  } finally {
    await store.close();
  }
});

Deno.test("a record without the favicon's bytes, or with something else there, has none", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = createKvStore(kv, storeClock());
  try {
    const cache = createCaptureCache({ store, log: createMemoryLogger(), ttlMs: 60_000 });
    const key = await jobKey(JOB);
    const { faviconData: _, ...before } = largestPage();
    for (const page of [before, { ...before, faviconData: "javascript:alert(1)" }]) {
      await store.setBlob(key.store, {
        bytes: PNG,
        meta: { url: JOB.url, strategy: "chromium-local", capturedAt: 1, targetStatus: 200, page },
      }, 60_000);
      const cached = await cache.get(key);
      assert.deepEqual(cached?.page, { ...before, faviconData: null });
    }
  } finally {
    await store.close();
  }
});
