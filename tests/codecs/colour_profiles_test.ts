/**
 * Uploads whose embedded ICC profile describes CMYK or grey samples: the wasm path converts them
 * through the profile to sRGB as libvips does on the sharp path, rather than by a plain formula.
 */
import assert from "node:assert/strict";
import {
  createSharpExporter,
  createWasmExporter,
  type ImageExporter,
} from "../../lib/codecs/exporter.ts";
import { iccColourSpace, readIcc } from "../../lib/codecs/icc.ts";
import { loadSharp } from "../../lib/codecs/sharp.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";
import { photoPixels, screenshotPixels } from "../../testing/codecs.ts";
import { greyProfile, rawPng, withIccPng } from "./input_kinds.ts";
import { meanAbsoluteError } from "./inspect.ts";
import type { Pixels } from "../../lib/codecs/pixels.ts";

const loaded = await loadSharp();
const skip = "reason" in loaded ? `sharp cannot load here: ${loaded.reason}` : undefined;
// The most a colour channel may differ on average from libvips' conversion (0..255 scale).
const LIMIT = 4;

/** Both exporters (closed afterwards); ignored with the reason when sharp cannot load. */
function againstLibvips(
  name: string,
  fn: (sharp: ImageExporter, wasm: ImageExporter) => Promise<void>,
) {
  Deno.test({
    name: `${name}${skip ? ` (skipped: ${skip})` : ""}`,
    ignore: skip !== undefined,
    async fn() {
      const created = await createSharpExporter();
      if (!("exporter" in created)) throw new Error(created.reason);
      const wasm = createWasmExporter();
      try {
        await fn(created.exporter, wasm);
      } finally {
        await Promise.all([created.exporter.close(), wasm.close()]);
      }
    },
  });
}

async function pngPixels(exporter: ImageExporter, upload: Uint8Array): Promise<Pixels> {
  const { bytes } = await exporter.export(upload.slice(), { format: "png", preset: "high" });
  return decodeWasm("png", bytes);
}

againstLibvips(
  "a CMYK JPEG with its profile comes out as libvips converts it, on the wasm path",
  async (sharpPath, wasmPath) => {
    const sharp = "sharp" in loaded ? loaded.sharp : undefined;
    // A page with a photo block, separated by libvips through its own CMYK profile and embedded.
    const page = screenshotPixels(320, 200);
    const photo = photoPixels(320, 200);
    for (let i = 0; i < page.data.length / 2; i++) page.data[i] = photo.data[i];
    const raw = { width: 320, height: 200, channels: 4 as const };
    const upload = new Uint8Array(
      await sharp!(page.data, { raw }).removeAlpha().toColourspace("cmyk").withIccProfile("cmyk")
        .jpeg({ quality: 95 }).toBuffer(),
    );
    assert.equal(iccColourSpace(readIcc("jpeg", upload)!), "CMYK");
    const native = await pngPixels(sharpPath, upload);
    const wasm = await pngPixels(wasmPath, upload);
    const mae = meanAbsoluteError(wasm, native);
    assert.ok(mae.every((e) => e <= LIMIT), `wasm vs libvips MAE per channel ${mae}`);
  },
);

againstLibvips(
  "a grey PNG with a linear-light grey profile comes out as libvips converts it",
  async (sharpPath, wasmPath) => {
    const ramp = { width: 256, height: 16, data: new Uint8Array(256 * 16 * 4) };
    for (let i = 0; i < 256 * 16; i++) ramp.data.set([i % 256, i % 256, i % 256, 255], i * 4);
    const upload = withIccPng(rawPng(ramp, { colourType: 0, depth: 8 }), greyProfile(1));
    const native = await pngPixels(sharpPath, upload);
    const wasm = await pngPixels(wasmPath, upload);
    assert.ok(Math.max(...meanAbsoluteError(native, ramp)) > 10, "the profile moves the greys");
    const mae = meanAbsoluteError(wasm, native);
    assert.ok(mae.every((e) => e <= LIMIT), `wasm vs libvips MAE per channel ${mae}`);
  },
);
