/**
 * The blank-frame test of the settle: a flat PNG is recognised whatever its row filters, and
 * one differing pixel, a large file or an unsupported format is not flat.
 */
import assert from "node:assert/strict";
import { isFlatPng } from "../../../lib/capture/page/blank_frame.ts";
import { encodePng } from "../../../lib/codecs/png_encoder.ts";

function image(width: number, height: number, channels: 3 | 4, fill: number[]) {
  const data = new Uint8Array(width * height * channels);
  for (let i = 0; i < data.length; i++) data[i] = fill[i % channels];
  return { data, width, height, channels };
}

Deno.test("a flat PNG is flat, RGB and RGBA, whatever the filters", async () => {
  for (const channels of [3, 4] as const) {
    const flat = image(640, 360, channels, [250, 250, 250, 255]);
    assert.equal(await isFlatPng(encodePng(flat, 6)), true, `${channels} channels`);
  }
});

Deno.test("one pixel off, in the first or the last row, is not flat", async () => {
  for (const at of [0, 640 * 359 + 639]) {
    const picture = image(640, 360, 4, [250, 250, 250, 255]);
    picture.data[at * 4 + 1] = 0;
    assert.equal(await isFlatPng(encodePng(picture, 6)), false, `pixel ${at}`);
  }
});

Deno.test("a PNG too large to be flat, or not a PNG at all, is not flat", async () => {
  const noisy = image(64, 64, 3, [0, 0, 0]);
  for (let i = 0; i < noisy.data.length; i++) noisy.data[i] = (i * 7919) % 251;
  assert.equal(await isFlatPng(encodePng(noisy, 6)), false);
  assert.equal(await isFlatPng(new Uint8Array(10)), false);
  // A flat PNG's header bytes after another format's signature (a webp or jpeg shot) are not read.
  const flat = encodePng(image(64, 64, 3, [255, 255, 255]), 6);
  const disguised = flat.slice();
  disguised.set(new TextEncoder().encode("RIFF"), 0);
  assert.equal(await isFlatPng(disguised), false);
});
