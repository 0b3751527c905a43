import assert from "node:assert/strict";
import { createWasmExporter } from "../../lib/codecs/exporter.ts";
import {
  BANDED_REMAP_MIN_PIXELS,
  joinPaletteBands,
  splitPaletteBands,
} from "../../lib/codecs/palette_bands.ts";
import type { DeflatedBand } from "../../lib/codecs/png_bands.ts";
import { encodePng } from "../../lib/codecs/png_encoder.ts";
import { deflatePaletteBand } from "../../lib/codecs/png_wasm.ts";
import type { Pixels } from "../../lib/codecs/pixels.ts";
import { initQuantiser, quantise, remapRows } from "../../lib/codecs/quantise.ts";
import { JobScheduler } from "../../lib/codecs/scheduler.ts";
import { encodePaletteSpread } from "../../lib/codecs/spread.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";
import { pngChunks } from "../../testing/png.ts";
import { alphaPixels, encodeFixture, screenshotPixels } from "../../testing/codecs.ts";
import { encodeOnTwoLanes } from "./two_lanes.ts";

await initQuantiser();

// Just above libimagequant's 2000x2000 threshold: the smallest image remapped in bands.
const WIDTH = 2400, HEIGHT = 1800;
const LEVEL = 9;

function copy(pixels: Pixels): Pixels {
  return { ...pixels, data: pixels.data.slice() };
}

Deno.test("a large palette PNG is the same file whether one worker or two remapped its bands", async () => {
  const image = screenshotPixels(WIDTH, HEIGHT);
  assert.ok(WIDTH * HEIGHT > BANDED_REMAP_MIN_PIXELS);
  const { palette, indices } = quantise(image, false);
  assert.equal(indices, undefined, "a large screenshot is left to the bands");
  const bands = splitPaletteBands(image, palette, LEVEL);
  assert.ok(bands.length >= 2, "the image is split");
  const alone = joinPaletteBands(image, palette, bands.map(deflatePaletteBand));
  const spread = await encodeOnTwoLanes(
    WIDTH * HEIGHT,
    (lanes, onSlot) =>
      encodePaletteSpread(image, { palette, level: LEVEL }, {
        ...lanes,
        runBand: (slot, band) => onSlot(slot, () => deflatePaletteBand(band)),
      }),
  );
  assert.deepEqual(spread.slots, [0, 1], "both regular slots took bands");
  assert.deepEqual(spread.load, { running: 0, queued: 0 }, "the lent slot was given back");
  assert.deepEqual(spread.png, alone);

  // Against the whole image remapped at once (what one thread did before): same palette, the
  // same pixels but for the dithering restarting at a few band edges, and about the same size.
  const whole = remapRows(image.data, WIDTH, palette);
  const once = encodePng({ data: whole, width: WIDTH, height: HEIGHT, channels: 1, palette }, 9);
  const plte = (png: Uint8Array) => pngChunks(png).find((c) => c.type === "PLTE")?.data;
  assert.deepEqual(plte(alone), plte(once), "one palette for every band");
  const [banded, single] = [await decodeWasm("png", alone), await decodeWasm("png", once)];
  let same = 0;
  for (let i = 0; i < banded.data.length; i += 4) {
    if (banded.data.subarray(i, i + 4).every((v, k) => v === single.data[i + k])) same++;
  }
  assert.ok(same / (WIDTH * HEIGHT) > 0.97, `identical pixels: ${same / (WIDTH * HEIGHT)}`);
  const ratio = alone.length / once.length;
  assert.ok(Math.abs(ratio - 1) < 0.03, `banded / whole size: ${ratio}`);
});

Deno.test("transparent palette entries survive banding; small images are remapped whole", () => {
  const transparent = alphaPixels(WIDTH, HEIGHT);
  const { palette, indices } = quantise(copy(transparent), true);
  assert.equal(indices, undefined);
  assert.ok(palette.some((v, i) => i % 4 === 3 && v < 255), "the palette has transparency");
  const rows = transparent.data.subarray(0, WIDTH * 4 * 4);
  assert.ok(remapRows(rows, WIDTH, palette).every((index) => index < palette.length / 4));

  // At 1080p libimagequant refines the palette while it remaps (a dither map): not banded.
  const small = quantise(screenshotPixels(1920, 1080), false);
  assert.equal(small.indices?.length, 1920 * 1080);
});

Deno.test("an export that starts waiting gets the lent slot back after one band", async () => {
  const image = screenshotPixels(3000, 2000); // 6 bands
  const palette = Uint8Array.of(0, 0, 0, 255, 255, 255, 255, 255);
  const scheduler = new JobScheduler({ slots: 2, smallSlots: 1, smallMaxPixels: 100, maxQueue: 4 });
  const started: number[] = [];
  const finish: (() => void)[] = [];
  const empty: DeflatedBand = { deflated: new Uint8Array(), adler: 1, length: 0, filter: "none" };
  const big = scheduler.run(
    image.width * image.height,
    (slot) =>
      encodePaletteSpread(image, { palette, level: LEVEL }, {
        slot,
        borrow: () => scheduler.borrow(),
        runBand: (bandSlot) => {
          started.push(bandSlot);
          return new Promise((resolve) => finish.push(() => resolve(empty)));
        },
      }),
  );
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
  await tick();
  assert.deepEqual(started, [0, 1], "the export and the idle slot each run a band");
  let waitingSlot: number | undefined;
  const waiting = scheduler.run(image.width * image.height, (slot) => {
    waitingSlot = slot;
    return Promise.resolve();
  });
  await tick();
  assert.deepEqual(scheduler.load, { running: 2, queued: 1 });
  finish[1](); // the lent slot's band ends: the slot goes to the waiting export
  await waiting;
  assert.equal(waitingSlot, 1);
  finish[0]();
  for (let band = 2; band < 6; band++) {
    await tick();
    finish[band]();
  }
  await big;
  assert.deepEqual(started, [0, 1, 0, 0, 0, 0], "the other bands ran on the export's own slot");
});

Deno.test("the wasm exporter writes a large PNG low in bands, the same file as on one thread", async () => {
  const input = await encodeFixture(screenshotPixels(WIDTH, HEIGHT), "png");
  const pool = createWasmExporter({ slots: 2 });
  const inline = createWasmExporter({ inline: true });
  try {
    await pool.warm();
    await inline.warm();
    const request = { format: "png", preset: "low" } as const;
    const fromPool = await pool.export(input.slice(), request);
    const fromThread = await inline.export(input.slice(), request);
    assert.equal(pngChunks(fromPool.bytes)[0].data[9], 3, "an indexed PNG");
    assert.deepEqual(fromPool.bytes, fromThread.bytes);
  } finally {
    await pool.close();
    await inline.close();
  }
});
