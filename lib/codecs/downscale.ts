/**
 * The wasm path's scale-down for fit.ts: decode, average the area under each output pixel
 * (pixels.ts), write a quick PNG (zlib 1: the exporter encodes it again). Run in a Worker by
 * downscale_worker.ts, or on the calling thread where Workers cannot start.
 */
import { downscalePixels, hasTransparency, losslessInput } from "./pixels.ts";
import { encodePng } from "./png_encoder.ts";
import type { ImageKind } from "./presets.ts";
import { decodeWasm } from "./wasm.ts";

export interface DownscaleTarget {
  kind: ImageKind;
  width: number;
  height: number;
}

/** `input` (an image of `target.kind`) at target.width x target.height, as a PNG. */
export async function downscaleToPng(
  input: Uint8Array,
  target: DownscaleTarget,
): Promise<Uint8Array<ArrayBuffer>> {
  const pixels = downscalePixels(await decodeWasm(target.kind, input), target.width, target.height);
  return encodePng(losslessInput(pixels, hasTransparency(pixels.data)), 1);
}
