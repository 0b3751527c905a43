/**
 * The image a capture is encoded as: png (the default, lossless, alpha), jpeg or webp at a
 * quality. Who encodes it (Chromium as it shoots, or the service for an image joined from several
 * shots) is the shot plan's to say (page/shot_plan.ts).
 */
import { type CaptureOptions, DEFAULT_QUALITY } from "./options.ts";

/**
 * format and quality in their key form: jpeg and webp always carry a quality (the default when
 * left out, so both spellings share a cache entry). A quality with png and a transparent jpeg
 * are refused before, with the other contradicting options (exclusive.ts).
 */
export function resolveFormat(options: CaptureOptions): CaptureOptions {
  if (options.format !== "jpeg" && options.format !== "webp") return options;
  return { ...options, quality: options.quality ?? DEFAULT_QUALITY };
}
