/**
 * Image bombs and malformed images through POST /api/export, on the wasm path and (when it
 * loads) the sharp path: each is refused by the pixel limit, refused as not an image, or decoded
 * safely / answered 500 internal_error with the envelope, and memory stays bounded.
 */
import assert from "node:assert/strict";
import { createSharpExporter, type ImageExporter } from "../../lib/codecs/exporter.ts";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { encodeFixture, screenshotPixels } from "../../testing/codecs.ts";
import { type BadImage, badImages, validPng } from "../../testing/bad_images.ts";
import { within60s } from "../../testing/fault_checks.ts";
import { pngSize } from "../../testing/png.ts";

// Generous: one 50 MP decode is 200 MB of RGBA; a leak over a batch of 28 files would show.
const MAX_RSS_GROWTH = 300 * 1024 * 1024;
const FORMATS = ["png", "jpeg", "webp"] as const;

const pixels = screenshotPixels(96, 64);
const REAL = {
  jpeg: await encodeFixture(pixels, "jpeg"),
  webp: await encodeFixture(pixels, "webp"),
};
const BATCH = badImages(REAL);
const sharp = await createSharpExporter();

function exportForm(image: BadImage, format: string): FormData {
  const form = new FormData();
  form.set("image", new File([image.bytes.slice()], image.filename, { type: image.contentType }));
  form.set("format", format);
  form.set("qualityPreset", "high");
  return form;
}

type App = Awaited<ReturnType<typeof createTestApp>>["app"];

/** Sends one bad image and checks the outcome its expectation allows; returns the status. */
async function exportBad(app: App, image: BadImage, format: string): Promise<number> {
  const res = await within60s(
    image.name,
    Promise.resolve(
      app.request("/api/export", { method: "POST", body: exportForm(image, format) }),
    ),
  );
  const label = `${image.name} -> ${format}`;
  if (image.expect === "pixel_limit") {
    const body = await assertEnvelope(app, res, 400, "unsupported_value");
    assert.match(String(body.error), /pixels/, label);
  } else if (image.expect === "not_an_image") {
    const body = await assertEnvelope(app, res, 400, "unsupported_value");
    assert.match(String(body.error), /PNG, JPEG or WebP/, label);
  } else if (res.status === 200) {
    assert.match(res.headers.get("content-type") ?? "", /^image\/(png|jpeg|webp)$/, label);
    assert.ok((await res.arrayBuffer()).byteLength > 0, label);
  } else {
    await assertEnvelope(app, res, 500, "internal_error").catch((error) => {
      throw new Error(`${label}: ${error.message}`);
    });
  }
  return res.status;
}

async function assertStillExports(app: App) {
  const health = await app.request("/healthz");
  assert.equal(health.status, 200);
  await health.body?.cancel();
  const good: BadImage = {
    name: "a valid PNG",
    bytes: validPng(64, 48),
    contentType: "image/png",
    filename: "ok.png",
    expect: "safe",
  };
  const res = await app.request("/api/export", { method: "POST", body: exportForm(good, "webp") });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/webp");
  await res.body?.cancel();
}

/** Runs the batch (output formats taken in turn); returns the RSS growth over it. */
async function runBatch(app: App) {
  await assertStillExports(app); // warms the codecs, so their start-up is not counted as growth
  const before = Deno.memoryUsage().rss;
  for (const [i, image] of BATCH.entries()) {
    await exportBad(app, image, FORMATS[i % FORMATS.length]);
  }
  const growth = Deno.memoryUsage().rss - before;
  await assertStillExports(app);
  return growth;
}

async function withExporter(exporter: ImageExporter | undefined, run: (app: App) => Promise<void>) {
  const t = await createTestApp({ deps: exporter ? { exporter } : {} });
  try {
    await run(t.app);
  } finally {
    await t.close();
    await exporter?.close();
  }
}

// MozJPEG in wasm pads missing scan data with grey, so this one needs planExport's size check.
const WASM_SLOW = "JPEG SOF declaring 7000x7000 over small data";

Deno.test("bad images on the wasm path: refused or handled safely, memory bounded", async () => {
  await withExporter(undefined, async (app) => {
    const growth = await runBatch(app);
    assert.ok(growth < MAX_RSS_GROWTH, `RSS grew by ${Math.round(growth / 2 ** 20)} MB`);
  });
});

Deno.test({
  name: "bad images on the sharp path: refused or handled safely, memory bounded",
  ignore: !("exporter" in sharp),
  fn: async () => {
    await withExporter("exporter" in sharp ? sharp.exporter : undefined, async (app) => {
      const growth = await runBatch(app);
      assert.ok(growth < MAX_RSS_GROWTH, `RSS grew by ${Math.round(growth / 2 ** 20)} MB`);
    });
  },
});

Deno.test("a small JPEG whose frame header claims 49 MP is refused before decoding", async () => {
  // Without the check in planExport, wasm MozJPEG would decode this 2.6 KB file grey-padded and
  // export all 49 MP (seconds of encoding for a tiny upload); sharp refuses it either way.
  const image = BATCH.find((candidate) => candidate.name === WASM_SLOW)!;
  await withExporter(undefined, async (app) => {
    for (const format of FORMATS) assert.equal(await exportBad(app, image, format), 500);
  });
});

Deno.test("the bad-image generators produce the lies they name", () => {
  const byName = new Map(BATCH.map((image) => [image.name, image.bytes]));
  const png = byName.get("PNG declaring 50000x50000")!;
  assert.deepEqual(pngSize(png), { width: 50_000, height: 50_000 });
  assert.ok(png.length < 64 * 1024, "the bomb itself is small");
  const zip = byName.get("zip archive sent as image/png")!;
  assert.deepEqual([...zip.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04]);
  const riff = byName.get("WebP RIFF size claiming 4 GiB")!;
  assert.equal(new DataView(riff.buffer).getUint32(4, true), 0xfffffff0);
  const canvas = byName.get("WebP VP8X canvas claiming 16384x16384")!;
  assert.equal(String.fromCharCode(...canvas.subarray(12, 16)), "VP8X");
});
