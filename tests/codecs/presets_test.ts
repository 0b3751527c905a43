/**
 * The PNG presets on a real 1920x1080 Chromium screenshot (testing/screenshot_1080p.png,
 * a local page rendered by headless Chromium), on both paths; how a Display P3 upload and CMYK
 * and YCCK JPEGs come out.
 */
import assert from "node:assert/strict";
import {
  createSharpExporter,
  createWasmExporter,
  type ImageExporter,
} from "../../lib/codecs/exporter.ts";
import { readIcc } from "../../lib/codecs/icc.ts";
import { QUALITY_PRESETS } from "../../lib/codecs/presets.ts";
import { loadSharp } from "../../lib/codecs/sharp.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";
import { encodeFixture } from "../../testing/codecs.ts";
import { cmykJpegOf } from "./cmyk_jpeg_writer.ts";
import { displayP3Profile, withIccPng } from "./input_kinds.ts";
import { pngChunks } from "../../testing/png.ts";
import { jpegTraits, meanAbsoluteError } from "./inspect.ts";

const loaded = await loadSharp();
const skip = "reason" in loaded ? `sharp cannot load here: ${loaded.reason}` : undefined;
const sharp = "sharp" in loaded ? loaded.sharp : undefined;
const SCREENSHOT = await Deno.readFile(
  new URL("../../testing/screenshot_1080p.png", import.meta.url),
);

/** Runs `fn` with both exporters, closed afterwards; ignored (with the reason) without sharp. */
function bothPaths(name: string, fn: (paths: [string, ImageExporter][]) => Promise<void>) {
  Deno.test({
    name: `${name}${skip ? ` (skipped: ${skip})` : ""}`,
    ignore: skip !== undefined,
    async fn() {
      const created = await createSharpExporter();
      if (!("exporter" in created)) throw new Error(created.reason);
      const wasm = createWasmExporter();
      try {
        await fn([["sharp", created.exporter], ["wasm", wasm]]);
      } finally {
        await Promise.all([created.exporter.close(), wasm.close()]);
      }
    },
  });
}

bothPaths(
  "real screenshot: PNG low <= 0.5x medium (MAE <= 3), high <= medium, paths within 10%",
  async (paths) => {
    const source = await decodeWasm("png", SCREENSHOT);
    const sizes: Record<string, Record<string, number>> = {};
    for (const [path, exporter] of paths) {
      sizes[path] = {};
      for (const preset of QUALITY_PRESETS) {
        const { bytes } = await exporter.export(SCREENSHOT.slice(), { format: "png", preset });
        sizes[path][preset] = bytes.length;
        const decoded = await decodeWasm("png", bytes);
        const mae = meanAbsoluteError(decoded, source);
        const colourType = pngChunks(bytes)[0].data[9];
        if (preset === "low") {
          assert.equal(colourType, 3, `${path}: low is a palette PNG`);
          const entries = pngChunks(bytes).find((c) => c.type === "PLTE")!.data.length / 3;
          assert.ok(entries <= 256, `${path}: ${entries} palette entries`);
          assert.ok(mae.every((e) => e <= 3), `${path}: low MAE per channel ${mae}`);
        } else {
          assert.deepEqual(mae, [0, 0, 0, 0], `${path}: ${preset} is lossless`);
        }
      }
      const { high, medium, low } = sizes[path];
      assert.ok(low <= 0.5 * medium, `${path}: low ${low} vs medium ${medium}`);
      assert.ok(high <= medium, `${path}: high ${high} vs medium ${medium}`);
    }
    for (const preset of QUALITY_PRESETS) {
      const ratio = sizes.wasm[preset] / sizes.sharp[preset];
      assert.ok(Math.abs(ratio - 1) <= 0.1, `${preset}: wasm/sharp size ${ratio}`);
    }
  },
);

bothPaths(
  "a Display P3 upload keeps its profile and its stored values in PNG, JPEG and WebP",
  async (paths) => {
    // Mid-saturated patches (red, green, blue, yellow): inside both gamuts, so a conversion
    // moves every one of them rather than clipping some to the same values.
    const colours = [[184, 50, 48], [60, 160, 70], [50, 90, 200], [220, 180, 40]];
    const page = { width: 320, height: 200, data: new Uint8Array(320 * 200 * 4) };
    for (let i = 0; i < 320 * 200; i++) page.data.set([...colours[(i % 320) >> 6 & 3], 255], i * 4);
    const p3 = displayP3Profile();
    const upload = withIccPng(await encodeFixture(page, "png"), p3);
    // The test means something only if converting to sRGB moves these pixels visibly: libvips'
    // own conversion (what the sharp path did before) is the witness.
    const converted = await sharp!(upload).png().toBuffer();
    const shift = meanAbsoluteError(await decodeWasm("png", new Uint8Array(converted)), page);
    assert.ok(Math.max(...shift) > 5, `P3 -> sRGB would move channels by ${shift}`);
    for (const [path, exporter] of paths) {
      for (const format of ["png", "jpeg", "webp"] as const) {
        const { bytes } = await exporter.export(upload.slice(), { format, preset: "high" });
        assert.deepEqual(readIcc(format, bytes), p3, `${path}: ${format} carries the P3 profile`);
        const mae = meanAbsoluteError(await decodeWasm(format, bytes), page);
        assert.ok(Math.max(...mae) < 2, `${path}: ${format} keeps the stored values, MAE ${mae}`);
      }
    }
  },
);

bothPaths(
  "CMYK and YCCK JPEGs become the ink formula's RGB on both paths, in every format",
  async (paths) => {
    const ink = inkPatches(64, 32);
    const expected = { ...ink, data: rgbaFromInkReference(ink.data) };
    for (const transform of ["cmyk", "ycck"] as const) {
      const upload = cmykJpegOf(ink, transform);
      for (const [path, exporter] of paths) {
        for (const format of ["png", "jpeg", "webp"] as const) {
          const { bytes } = await exporter.export(upload.slice(), { format, preset: "high" });
          const mae = meanAbsoluteError(await decodeWasm(format, bytes), expected);
          // Lossless PNG shows the decode itself (the fixture is near-lossless); WebP's 4:2:0
          // chroma blurs the hard patch edges a little.
          const limit = format === "png" ? 1 : 5;
          assert.ok(mae.every((e) => e <= limit), `${path}: ${transform} -> ${format}: MAE ${mae}`);
        }
      }
    }
  },
);

/** Ink patches (paper, full black, cyan, a mixed brown) over a left-to-right magenta ramp. */
function inkPatches(width: number, height: number) {
  const patches = [[0, 0, 0, 0], [0, 0, 0, 255], [255, 0, 0, 0], [30, 200, 180, 40]];
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const x = i % width;
    const patch = patches[Math.floor((x / width) * 4)];
    const ramp = Math.round((x % (width / 4)) * (255 / (width / 4)) * 0.3);
    data.set([patch[0], Math.min(255, patch[1] + ramp), patch[2], patch[3]], i * 4);
  }
  return { data, width, height };
}

/** R = 255 - (C (1 - K/255) + K), written out independently of lib/codecs/cmyk.ts. */
function rgbaFromInkReference(ink: Uint8Array): Uint8Array {
  const out = new Uint8Array(ink.length);
  for (let i = 0; i < ink.length; i += 4) {
    const k = ink[i + 3] / 255;
    for (let c = 0; c < 3; c++) out[i + c] = Math.round(255 * (1 - ink[i + c] / 255) * (1 - k));
    out[i + 3] = 255;
  }
  return out;
}

bothPaths(
  "fast (a capture's re-encode): a sequential JPEG, same pixels within a tolerance",
  async (paths) => {
    const source = await decodeWasm("png", SCREENSHOT);
    for (const [path, exporter] of paths) {
      const request = { format: "jpeg", preset: "medium", quality: 80 } as const;
      const fast = await exporter.export(SCREENSHOT.slice(), { ...request, fast: true });
      const small = await exporter.export(SCREENSHOT.slice(), request);
      assert.equal(jpegTraits(fast.bytes).progressive, false, `${path}: fast is sequential`);
      assert.equal(jpegTraits(small.bytes).progressive, true, `${path}: an export is progressive`);
      for (const { bytes } of [fast, small]) {
        const mae = meanAbsoluteError(await decodeWasm("jpeg", bytes), source);
        assert.ok(mae.slice(0, 3).every((channel) => channel < 3), `${path}: MAE ${mae}`);
      }
    }
  },
);
