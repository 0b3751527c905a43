import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";
import {
  adler32,
  adler32Combine,
  bandCount,
  deflateBand,
  encodeBands,
  splitBands,
} from "../../lib/codecs/png_bands.ts";
import { encodePng } from "../../lib/codecs/png_encoder.ts";
import { PRESETS } from "../../lib/codecs/presets.ts";
import { rgbOf } from "../../lib/codecs/pixels.ts";
import { encodeSpread } from "../../lib/codecs/spread.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";
import { alphaPixels, photoPixels, screenshotPixels } from "../../testing/codecs.ts";
import { encodeOnTwoLanes } from "./two_lanes.ts";

const SCREENSHOT = await Deno.readFile(
  new URL("../../testing/screenshot_1080p.png", import.meta.url),
);

Deno.test("Adler-32 of joined runs is combined from the runs' sums", () => {
  const bytes = photoPixels(97, 61).data;
  const stream = deflateSync(bytes); // zlib ends its stream with the Adler-32, big-endian
  assert.equal(adler32(bytes), stream.readUInt32BE(stream.length - 4));
  for (const cut of [0, 1, 5551, 5552, 9000, bytes.length]) {
    const [a, b] = [bytes.subarray(0, cut), bytes.subarray(cut)];
    assert.equal(adler32Combine(adler32(a), adler32(b), b.length), adler32(bytes), `cut ${cut}`);
  }
});

Deno.test("a banded PNG decodes to its pixels, RGB and RGBA, at every setting", async () => {
  const cases = [
    { pixels: screenshotPixels(1500, 1400), channels: 3 as const },
    { pixels: alphaPixels(1500, 1400), channels: 4 as const },
  ];
  for (const { pixels, channels } of cases) {
    const data = channels === 3 ? rgbOf(pixels.data) : pixels.data;
    const image = { data, width: pixels.width, height: pixels.height, channels };
    assert.ok(bandCount(image.width, image.height) >= 2, "the image is split");
    for (const filter of ["best", "adaptive", "none", "paeth"] as const) {
      const png = encodeBands(image, { filter, level: 6 });
      const decoded = await decodeWasm("png", png);
      assert.deepEqual(decoded.data, pixels.data, `${channels} channels, ${filter}`);
    }
  }
});

Deno.test("trials pick no filter for the real screenshot and stay within medium's size", async () => {
  const { data, width, height } = await decodeWasm("png", SCREENSHOT);
  const image = { data: rgbOf(data), width, height, channels: 3 as const };
  const atMost = { filter: "adaptive" as const, level: 6 };
  const bands = splitBands(image, { filter: "best", level: 9, atMost }).map(deflateBand);
  assert.deepEqual(bands.map((b) => b.filter), ["none", "none"]);
  const high = encodeBands(image, { filter: "best", level: 9, atMost });
  const medium = encodeBands(image, atMost);
  const adaptiveNine = encodePng(image, 9);
  assert.ok(high.length <= medium.length, `high ${high.length} vs medium ${medium.length}`);
  // The reason for trials: on screenshots no filter beats libpng's adaptive choice at zlib 9.
  assert.ok(high.length < 0.95 * adaptiveNine.length, `${high.length} vs ${adaptiveNine.length}`);
});

Deno.test("bands spread over lent slots give the same bytes as one thread", async () => {
  const pixels = screenshotPixels(1600, 1300);
  const image = { data: rgbOf(pixels.data), width: 1600, height: 1300, channels: 3 as const };
  const settings = { filter: "best" as const, level: 9 };
  const spread = await encodeOnTwoLanes(
    1600 * 1300,
    (lanes, onSlot) =>
      encodeSpread(image, settings, {
        ...lanes,
        runBand: (slot, band) => onSlot(slot, () => deflateBand(band)),
      }),
  );
  assert.deepEqual(spread.png, encodeBands(image, settings));
  assert.deepEqual(spread.slots, [0, 1], "both regular slots took bands");
  assert.deepEqual(spread.load, { running: 0, queued: 0 }, "the lent slot was given back");
});

Deno.test("photo-like bands are deflated near-optimally; screenshot bands keep zlib's bytes", async () => {
  const high = PRESETS.high.png;
  assert.ok(high.mode === "lossless" && high.nearOptimal, "PNG high deflates near-optimally");
  const withoutIt = { ...high, nearOptimal: undefined };
  const photo = photoPixels(1500, 1400);
  const photoImage = { ...photo, data: rgbOf(photo.data), channels: 3 as const };
  const better = encodeBands(photoImage, high);
  const zlibOnly = encodeBands(photoImage, withoutIt);
  assert.ok(better.length < 0.97 * zlibOnly.length, `${better.length} vs ${zlibOnly.length}`);
  assert.deepEqual((await decodeWasm("png", better)).data, photo.data);

  const { data, width, height } = await decodeWasm("png", SCREENSHOT);
  const screenshot = { data: rgbOf(data), width, height, channels: 3 as const };
  assert.deepEqual(encodeBands(screenshot, high), encodeBands(screenshot, withoutIt));
});
