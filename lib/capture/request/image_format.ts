/**
 * The image a capture is encoded as: png (the default, lossless, alpha), jpeg or webp at a
 * quality. Who encodes it (Chromium as it shoots, or the service for an image joined from several
 * shots) is the shot plan's to say (page/shot_plan.ts).
 */
import { invalidField } from "./request_failure.ts";
import { type CaptureOptions, DEFAULT_QUALITY, type ImageFormat } from "./options.ts";

/** The Content-Type of each format, for raw-bytes answers and the response's `format`. */
export const FORMAT_MEDIA_TYPES: Record<ImageFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
};

/**
 * format and quality in their key form: jpeg and webp always carry a quality (the default when
 * left out, so both spellings share a cache entry); 400 for a quality with png and for jpeg with
 * transparent (jpeg has no alpha channel).
 */
export function resolveFormat(options: CaptureOptions): CaptureOptions {
  const format = options.format ?? "png";
  if (format === "png") {
    if (options.quality !== undefined) {
      throw invalidField(
        "quality applies to jpeg and webp only.",
        'PNG is lossless: leave quality out, or send format "jpeg" or "webp" with it.',
      );
    }
    return options;
  }
  if (format === "jpeg" && options.transparent) {
    throw invalidField(
      "A jpeg cannot be transparent.",
      'JPEG has no alpha channel: send format "png" or "webp" with transparent, or ' +
        "leave transparent out.",
    );
  }
  return { ...options, quality: options.quality ?? DEFAULT_QUALITY };
}
