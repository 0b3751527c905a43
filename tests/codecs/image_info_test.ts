import assert from "node:assert/strict";
import encodeWebp from "@jsquash/webp/encode.js";
import { concatBytes } from "../../lib/bytes.ts";
import { exifOrientation } from "../../lib/codecs/exif.ts";
import { readImageInfo, sniffKind } from "../../lib/codecs/image_info.ts";
import { pngChunk } from "../../lib/codecs/png_encoder.ts";
import type { ImageKind } from "../../lib/codecs/presets.ts";
import { initWasmCodecs } from "../../lib/codecs/wasm.ts";
import {
  alphaPixels,
  encodeFixture,
  screenshotPixels,
  withOrientation,
} from "../../testing/codecs.ts";

const KINDS: ImageKind[] = ["png", "jpeg", "webp"];
const text = (s: string) => new TextEncoder().encode(s);

Deno.test("sniffKind names PNG, JPEG and WebP by their magic bytes and nothing else", async () => {
  const pixels = screenshotPixels(40, 30);
  for (const kind of KINDS) assert.equal(sniffKind(await encodeFixture(pixels, kind)), kind);
  for (const other of ["", "GIF89a....", "<svg></svg>", "RIFF\0\0\0\0WAVEfmt ", "BM6\0\0"]) {
    assert.equal(sniffKind(text(other)), undefined, JSON.stringify(other));
  }
});

Deno.test("readImageInfo reads the size of each kind from its header", async () => {
  const pixels = screenshotPixels(123, 45);
  for (const kind of KINDS) {
    const info = readImageInfo(kind, await encodeFixture(pixels, kind));
    assert.deepEqual(
      info,
      {
        kind,
        width: 123,
        height: 45,
        hasAlpha: false,
        orientation: 1,
        animated: false,
        cmyk: false,
        grey: false,
      },
    );
  }
});

Deno.test("readImageInfo tells which inputs can carry transparency", async () => {
  const alpha = alphaPixels(64, 48);
  const opaque = screenshotPixels(64, 48);
  assert.equal(readImageInfo("png", await encodeFixture(alpha, "png", true))?.hasAlpha, true);
  assert.equal(readImageInfo("png", await encodeFixture(opaque, "png"))?.hasAlpha, false);
  // A palette-style transparency chunk counts too.
  const rgb = await encodeFixture(opaque, "png");
  const withTrns = concatBytes([
    rgb.subarray(0, 33),
    pngChunk("tRNS", new Uint8Array(6)),
    rgb.subarray(33),
  ]);
  assert.equal(readImageInfo("png", withTrns)?.hasAlpha, true);
  const lossyAlpha = await encodeFixture(alpha, "webp", true); // VP8X + ALPH
  assert.deepEqual(pick(readImageInfo("webp", lossyAlpha)), [64, 48, true]);
  await initWasmCodecs();
  const image = { data: new Uint8ClampedArray(alpha.data), width: 64, height: 48 } as ImageData;
  const lossless = new Uint8Array(await encodeWebp(image, { lossless: 1 })); // VP8L
  assert.equal(String.fromCharCode(...lossless.subarray(12, 16)), "VP8L");
  assert.deepEqual(pick(readImageInfo("webp", lossless)), [64, 48, true]);
});

Deno.test("readImageInfo finds the EXIF orientation in JPEG, PNG and WebP", async () => {
  const pixels = screenshotPixels(40, 30);
  for (const kind of KINDS) {
    const file = await encodeFixture(pixels, kind);
    for (const orientation of [1, 3, 6, 8]) {
      const info = readImageInfo(kind, withOrientation(kind, file, orientation));
      assert.equal(info?.orientation, orientation, `${kind} ${orientation}`);
      assert.deepEqual([info?.width, info?.height], [40, 30], "stored size, not rotated");
    }
  }
});

Deno.test("exifOrientation reads both byte orders and ignores junk", () => {
  const little = Uint8Array.from([
    0x49,
    0x49,
    42,
    0,
    8,
    0,
    0,
    0,
    1,
    0,
    0x12,
    0x01,
    3,
    0,
    1,
    0,
    0,
    0,
    6,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);
  assert.equal(exifOrientation(little), 6);
  assert.equal(exifOrientation(concatBytes([text("Exif\0\0"), little])), 6);
  assert.equal(exifOrientation(text("not a tiff at all")), 1);
  const outOfRange = little.slice();
  outOfRange[18] = 9;
  assert.equal(exifOrientation(outOfRange), 1);
});

Deno.test("readImageInfo flags animated WebP and refuses truncated headers", async () => {
  const vp8x = new Uint8Array(30);
  vp8x.set(text("RIFF"), 0);
  vp8x.set(text("WEBPVP8X"), 8);
  vp8x[16] = 10;
  vp8x[20] = 0x02; // animation flag
  vp8x[24] = 99; // canvas width - 1
  vp8x[27] = 49; // canvas height - 1
  assert.deepEqual(pick(readImageInfo("webp", vp8x)), [100, 50, false]);
  assert.equal(readImageInfo("webp", vp8x)?.animated, true);
  const pixels = screenshotPixels(40, 30);
  for (const kind of KINDS) {
    const file = await encodeFixture(pixels, kind);
    assert.equal(readImageInfo(kind, file.subarray(0, 20)), undefined, kind);
  }
  const noFrame = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xd9]);
  assert.equal(readImageInfo("jpeg", noFrame), undefined);
  const zeroWide = await encodeFixture(pixels, "png");
  zeroWide.fill(0, 16, 20);
  assert.equal(readImageInfo("png", zeroWide), undefined);
});

function pick(info: ReturnType<typeof readImageInfo>) {
  return [info?.width, info?.height, info?.hasAlpha];
}
