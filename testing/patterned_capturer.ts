/**
 * A capturer double whose image captures are one large patterned PNG (a long page), every pixel
 * telling where it is: red and green are its row, blue its column, so any crop shows whether it
 * is the right region of the capture.
 */
import { deflateSync } from "node:zlib";
import { concatBytes } from "../lib/bytes.ts";
import { pngChunk } from "../lib/codecs/png_encoder.ts";
import { type SolidCapturer, solidCapturer } from "./solid_capturer.ts";

const made = new Map<string, Uint8Array>();

/** The pattern's colour at (x, y). */
export function patternAt(x: number, y: number): [number, number, number] {
  return [y & 255, (y >> 8) & 255, (x * 7 + (y >> 4)) & 255];
}

/** A real 8-bit RGB PNG of the pattern (memoised). */
export function patternedPng(width: number, height: number): Uint8Array {
  const id = `${width}x${height}`;
  const known = made.get(id);
  if (known) return known;
  const stride = 1 + width * 3;
  const raw = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw.set(patternAt(x, y), y * stride + 1 + x * 3);
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8);
  const png = concatBytes([
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", new Uint8Array(deflateSync(raw, { level: 1 }))),
    pngChunk("IEND", new Uint8Array()),
  ]);
  made.set(id, png);
  return png;
}

/** A solidCapturer whose PNG captures are the width x height pattern instead. */
export function patternedCapturer(size: { width: number; height: number }): SolidCapturer {
  const base = solidCapturer();
  const capture = base.capture.bind(base);
  base.capture = async (job, signal) => {
    const result = await capture(job, signal);
    if (result.format !== "png") return result;
    return { ...result, image: patternedPng(size.width, size.height) };
  };
  return base;
}
