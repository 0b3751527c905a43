/**
 * Fitting an image to a client's limits on both codec paths: the area-averaging scale-down of
 * the wasm path, then fitImage with libvips (sharp) and with the wasm exporter.
 */
import { codecPaths } from "../../testing/codec_paths.ts";
import assert from "node:assert/strict";
import { base64Length } from "../../lib/bytes.ts";
import { fitImage } from "../../lib/codecs/fit.ts";
import { readImageInfo, sniffKind } from "../../lib/codecs/image_info.ts";
import { downscalePixels } from "../../lib/codecs/pixels.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";
import { solidPng } from "../../testing/solid_capturer.ts";
import { encodeFixture, screenshotPixels } from "../../testing/codecs.ts";

Deno.test("downscalePixels averages the area under each pixel, weighting colour by alpha", () => {
  // 4x2 -> 2x1: each output pixel covers a 2x2 block.
  const data = Uint8Array.from([
    ...[255, 0, 0, 255, 0, 0, 255, 255, 10, 10, 10, 255, 30, 30, 30, 255],
    ...[255, 0, 0, 255, 0, 0, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0],
  ]);
  const out = downscalePixels({ data, width: 4, height: 2 }, 2, 1);
  assert.deepEqual([out.width, out.height], [2, 1]);
  assert.deepEqual([...out.data.subarray(0, 4)], [128, 0, 128, 255]);
  // Transparent pixels add no colour: the two opaque greys average to 20, alpha to half.
  assert.deepEqual([...out.data.subarray(4, 8)], [20, 20, 20, 128]);
});

Deno.test("downscalePixels covers fractional source pixels in proportion (3 -> 2)", () => {
  const data = Uint8Array.from([0, 0, 0, 255, 90, 90, 90, 255, 180, 180, 180, 255]);
  const out = downscalePixels({ data, width: 3, height: 1 }, 2, 1);
  // Left: 1 x 0 + 0.5 x 90 over 1.5; right: 0.5 x 90 + 1 x 180 over 1.5.
  assert.deepEqual([...out.data], [30, 30, 30, 255, 150, 150, 150, 255]);
});

const paths = await codecPaths();

for (const [path, create] of paths) {
  Deno.test(`${path}: an image within the limits is left alone; a too-tall one is scaled, colours kept`, async () => {
    const exporter = await create();
    try {
      const limits = { maxSide: 8000, maxBase64Bytes: 5 * 1024 * 1024 };
      assert.equal(await fitImage(solidPng(800, 600, [1, 2, 3]), { limits, exporter }), null);
      const tall = solidPng(1000, 9000, [20, 120, 220]);
      const fitted = await fitImage(tall, { limits, exporter });
      assert.ok(fitted, "scaled");
      assert.deepEqual([fitted.format, fitted.contentType], ["png", "image/png"]);
      assert.deepEqual([fitted.width, fitted.height], [888, 8000]);
      const pixels = await decodeWasm("png", fitted.bytes);
      assert.deepEqual([pixels.width, pixels.height], [888, 8000]);
      const middle = (4000 * 888 + 444) * 4;
      assert.deepEqual([...pixels.data.subarray(middle, middle + 4)], [20, 120, 220, 255]);
    } finally {
      await exporter.close();
    }
  });

  Deno.test(`${path}: an image over the byte budget becomes a JPEG, smaller still if it must`, async () => {
    const exporter = await create();
    try {
      const input = await encodeFixture(screenshotPixels(1200, 900), "png");
      // Far below what the PNG needs, so JPEG and then smaller sides are tried.
      const limits = { maxSide: 8000, maxBase64Bytes: 40_000 };
      assert.ok(
        base64Length(input.length) > limits.maxBase64Bytes,
        "the fixture misses the budget",
      );
      const fitted = await fitImage(input, { limits, exporter });
      assert.ok(fitted, "re-encoded");
      assert.equal(fitted.format, "jpeg");
      assert.equal(sniffKind(fitted.bytes), "jpeg");
      assert.ok(base64Length(fitted.bytes.length) <= limits.maxBase64Bytes);
      const info = readImageInfo("jpeg", fitted.bytes);
      assert.deepEqual([info?.width, info?.height], [fitted.width, fitted.height]);
      assert.ok(Math.abs(fitted.width / fitted.height - 4 / 3) < 0.01, "aspect ratio kept");
    } finally {
      await exporter.close();
    }
  });
}
