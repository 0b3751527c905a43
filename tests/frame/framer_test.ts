/**
 * The framer on both codec paths: the same design gives the same pixels on libvips and on wasm
 * (only the encoders differ), EXIF orientation is applied first, and an icon is read from the
 * forms a capture carries.
 */
import assert from "node:assert/strict";
import { codecPaths } from "../../testing/codec_paths.ts";
import { encodeFixture, screenshotPixels, withOrientation } from "../../testing/codecs.ts";
import { decodePng } from "../../testing/capture_fixtures.ts";
import { icoOf, solidPng } from "../../testing/icons.ts";
import { createFramer } from "../../lib/frame/framer.ts";

const PNG_OUT = { format: "png", preset: "medium" } as const;
// The codec paths that load here: wasm always, libvips where sharp loads.
const paths = (await codecPaths()).map(([name]) => name as "sharp" | "wasm");

async function framedOn(
  encoder: "sharp" | "wasm",
  bytes: Uint8Array,
  fields: object,
  page: object | null = null,
) {
  const framer = createFramer({ encoder });
  const out = await framer.frame({ bytes, url: "https://example.com/a", page }, fields, PNG_OUT);
  return { ...out, image: decodePng(out.bytes) };
}

Deno.test("both codec paths give the same frame, pixel for pixel", async () => {
  if (paths.length < 2) return; // sharp does not load here: nothing to compare
  const upload = await encodeFixture(screenshotPixels(800, 500), "png");
  for (const fields of [{}, { size: "og", device: "laptop" }, { size: "story", fit: "top" }]) {
    const [wasm, sharp] = await Promise.all([
      framedOn("wasm", upload, fields),
      framedOn("sharp", upload, fields),
    ]);
    assert.deepEqual(wasm.placement, sharp.placement, JSON.stringify(fields));
    assert.deepEqual(wasm.image.pixels, sharp.image.pixels, JSON.stringify(fields));
  }
});

Deno.test("an upload's EXIF orientation is applied before framing", async () => {
  const pixels = screenshotPixels(300, 200);
  const jpeg = withOrientation("jpeg", await encodeFixture(pixels, "jpeg"), 6);
  for (const name of paths) {
    const out = await framedOn(name, jpeg, { padding: 10 });
    // Turned a quarter: 200 wide, 300 high, plus the padding.
    assert.deepEqual([out.placement.image.width, out.placement.image.height], [200, 300], name);
  }
});

Deno.test("the bar's icon is read from a PNG and from an .ico holding one", async () => {
  const icon = solidPng(16, [10, 200, 30]);
  const upload = await encodeFixture(screenshotPixels(400, 300), "png");
  const dataUrl = (type: string, bytes: Uint8Array) =>
    `data:${type};base64,${btoa(String.fromCharCode(...bytes))}`;
  for (
    const [type, bytes] of [["image/png", icon], [
      "image/x-icon",
      icoOf([{ side: 16, bytes: icon }]),
    ]] as const
  ) {
    const out = await framedOn("wasm", upload, { browserBar: "light", padding: 0, radius: 0 }, {
      title: "Icons",
      faviconData: dataUrl(type, bytes),
    });
    const iconX = Math.round(40 * 1.9), iconY = Math.round((40 - 18) / 2);
    assert.deepEqual(out.image.rgb(iconX + 9, iconY + 9), [10, 200, 30], type);
  }
});
