/**
 * The one mapping of export failures to the API's errors (status, code, hint), used where the
 * HTTP layer meets the exporter: the export route and the upload admission.
 */
import {
  type ApiError,
  internalError,
  invalidRequest,
  unsupportedValue,
  upstreamUnavailable,
} from "../errors.ts";
import { ExportFailure } from "./errors.ts";
import { MAX_PIXELS, MAX_SIDE, WEBP_MAX_SIDE } from "./presets.ts";

/** The answer for each kind of export failure. */
export function exportFailureError({ detail }: ExportFailure): ApiError {
  switch (detail.kind) {
    case "empty":
      return invalidRequest("The image part is empty.", {
        hint: "Attach the picture to export as the multipart part named image.",
      });
    case "not_an_image":
      return unsupportedValue("image must be a PNG, JPEG or WebP file.", {
        hint: "Upload PNG, JPEG or WebP; the type is read from the file's bytes, not its name " +
          "or declared Content-Type.",
      });
    case "animated":
      return unsupportedValue("Animated WebP images are not supported.", {
        hint: "Upload a still image (a single frame).",
      });
    case "too_large":
      // unsupported_value, not invalid_request: the request is well-formed, but this image's
      // size is outside the supported range, as a format outside png/jpeg/webp would be.
      return unsupportedValue(
        `The image is ${detail.width}x${detail.height} pixels; at most ${MAX_PIXELS / 1e6} ` +
          `megapixels and ${MAX_SIDE} pixels per side are supported.`,
        { hint: "Scale the image down (or export a smaller region) and retry." },
      );
    case "too_tall_for_webp":
      return unsupportedValue(
        `The image is ${detail.width}x${detail.height} pixels; WebP holds at most ` +
          `${WEBP_MAX_SIDE} pixels per side.`,
        { hint: "Export this image as PNG or JPEG, or export a smaller region as WebP." },
      );
    case "busy":
      return upstreamUnavailable("The image encoder is busy.", {
        hint: `Too many exports are in progress; retry after ${detail.retryAfterS} seconds.`,
        headers: { "Retry-After": String(detail.retryAfterS) },
      });
    case "undecodable":
      // The reason (a decoder's words) stays in the logs.
      return internalError("The image could not be processed.", {
        hint: "The file looks like a PNG, JPEG or WebP but could not be decoded; check that it " +
          "opens in an image viewer, export it again and retry.",
      });
  }
}

/** `error` as the API's answer when it is an ExportFailure; anything else as it is. */
export function exportAnswer(error: unknown): unknown {
  return error instanceof ExportFailure ? exportFailureError(error) : error;
}
