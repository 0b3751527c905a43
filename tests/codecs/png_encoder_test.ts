import assert from "node:assert/strict";
import { crc32 } from "node:zlib";
import { encodePng } from "../../lib/codecs/png_encoder.ts";
import { filterRows } from "../../lib/codecs/png_filters.ts";
import { rgbOf } from "../../lib/codecs/pixels.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";
import { alphaPixels, screenshotPixels } from "../../testing/codecs.ts";
import { pngChunks } from "../../testing/png.ts";
import { pngRowFilters } from "./inspect.ts";

Deno.test("encodePng is lossless for RGB and RGBA and writes a well-formed file", async () => {
  const cases = [
    { pixels: screenshotPixels(301, 97), channels: 3 as const, colourType: 2 },
    { pixels: alphaPixels(120, 90), channels: 4 as const, colourType: 6 },
  ];
  for (const { pixels, channels, colourType } of cases) {
    const data = channels === 3 ? rgbOf(pixels.data) : pixels.data;
    const png = encodePng({ data, width: pixels.width, height: pixels.height, channels }, 6);
    const chunks = pngChunks(png);
    assert.deepEqual(chunks.map((c) => c.type), ["IHDR", "IDAT", "IEND"]);
    assert.deepEqual(Array.from(chunks[0].data.subarray(8)), [8, colourType, 0, 0, 0]);
    for (const chunk of chunks) { // every chunk's CRC, checked by node:zlib
      const end = chunk.offset + 8 + chunk.data.length;
      assert.equal(chunk.crc, crc32(png.subarray(chunk.offset + 4, end)), chunk.type);
    }
    const decoded = await decodeWasm("png", png);
    const expected = channels === 4 ? pixels.data : withOpaqueAlpha(pixels.data);
    assert.deepEqual(decoded.data, expected);
  }
});

Deno.test("each row gets the filter with the smallest sum of absolute values", () => {
  const { data, width, height } = screenshotPixels(640, 360);
  const rgb = rgbOf(data);
  const filtered = filterRows({ data: rgb, width, height, channels: 3 });
  const stride = width * 3;
  for (let y = 0; y < height; y++) {
    const row = rgb.subarray(y * stride, (y + 1) * stride);
    const prev = y ? rgb.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    const sums = [0, 1, 2, 3, 4].map((filter) => referenceCost(filter, row, prev, 3));
    const chosen = filtered[y * (stride + 1)];
    assert.equal(sums[chosen], Math.min(...sums), `row ${y}: sums ${sums}, chose ${chosen}`);
  }
});

Deno.test("a screenshot's rows use several filter types, and zlib 9 is no larger than 6", () => {
  const { data, width, height } = screenshotPixels(1920, 1080);
  const image = { data: rgbOf(data), width, height, channels: 3 as const };
  const medium = encodePng(image, 6);
  const high = encodePng(image, 9);
  const types = new Set(pngRowFilters(medium));
  assert.ok(types.size >= 3, `filter types used: ${[...types]}`);
  assert.ok(high.length <= medium.length, `level 9 ${high.length} vs level 6 ${medium.length}`);
});

/** The five PNG filters written out plainly (the W3C PNG specification, section 9.2), costed as libpng does. */
function referenceCost(filter: number, row: Uint8Array, prev: Uint8Array, bpp: number): number {
  let sum = 0;
  for (let i = 0; i < row.length; i++) {
    const a = i >= bpp ? row[i - bpp] : 0;
    const b = prev[i];
    const c = i >= bpp ? prev[i - bpp] : 0;
    const p = a + b - c;
    const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
    const paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    const predictor = [0, a, b, Math.floor((a + b) / 2), paeth][filter];
    const value = (row[i] - predictor + 256) % 256;
    sum += value < 128 ? value : 256 - value;
  }
  return sum;
}

function withOpaqueAlpha(data: Uint8Array): Uint8Array {
  return data.map((v, i) => (i % 4 === 3 ? 255 : v));
}
