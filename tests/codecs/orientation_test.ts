import assert from "node:assert/strict";
import { orientPixels, type Pixels } from "../../lib/codecs/pixels.ts";
import { loadSharp, type Sharp } from "../../lib/codecs/sharp.ts";
import { encodeFixture, withOrientation } from "../../testing/codecs.ts";

/** 3x2 pixels whose red channel numbers them 0..5, row by row. */
function numbered(): Pixels {
  const data = new Uint8Array(3 * 2 * 4);
  for (let i = 0; i < 6; i++) data.set([i, 0, 0, 255], i * 4);
  return { data, width: 3, height: 2 };
}

const order = (p: Pixels) => Array.from({ length: p.width * p.height }, (_, i) => p.data[i * 4]);

Deno.test("orientPixels turns each EXIF orientation upright (hand-checked layouts)", () => {
  // Stored:  0 1 2      EXIF 6 means "rotate 90 degrees clockwise to view".
  //          3 4 5
  const expected: Record<number, [number, number, number[]]> = {
    1: [3, 2, [0, 1, 2, 3, 4, 5]],
    2: [3, 2, [2, 1, 0, 5, 4, 3]],
    3: [3, 2, [5, 4, 3, 2, 1, 0]],
    4: [3, 2, [3, 4, 5, 0, 1, 2]],
    5: [2, 3, [0, 3, 1, 4, 2, 5]],
    6: [2, 3, [3, 0, 4, 1, 5, 2]],
    7: [2, 3, [5, 2, 4, 1, 3, 0]],
    8: [2, 3, [2, 5, 1, 4, 0, 3]],
  };
  for (const [orientation, [width, height, pixels]] of Object.entries(expected)) {
    const out = orientPixels(numbered(), Number(orientation));
    assert.deepEqual([out.width, out.height, order(out)], [width, height, pixels], orientation);
  }
});

const loaded = await loadSharp();
const sharp: Sharp | undefined = "sharp" in loaded ? loaded.sharp : undefined;
Deno.test({
  name: "orientPixels agrees with libvips' own auto-orientation for all eight values" +
    ("reason" in loaded ? ` (skipped: sharp cannot load here: ${loaded.reason})` : ""),
  ignore: !sharp,
  async fn() {
    const png = await encodeFixture(numbered(), "png");
    for (let orientation = 1; orientation <= 8; orientation++) {
      const theirs = await libvipsOrder(withOrientation("png", png, orientation));
      const ours = orientPixels(numbered(), orientation);
      assert.deepEqual([ours.width, ours.height, order(ours)], theirs, `${orientation}`);
    }
  },
});

async function libvipsOrder(file: Uint8Array): Promise<[number, number, number[]]> {
  const result = await sharp!(file).autoOrient().raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = result.info;
  const red = Array.from({ length: width * height }, (_, i) => result.data[i * channels]);
  return [width, height, red];
}
