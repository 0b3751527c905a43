/**
 * What an export will be, read from the upload's bytes alone before any decoder runs: its kind
 * by magic bytes, its size, orientation, alpha and colour profile from the header.
 */
import { ApiError, invalidRequest, unsupportedValue } from "../errors.ts";
import { iccColourSpace, readIcc } from "./icc.ts";
import { readImageInfo, sniffKind } from "./image_info.ts";
import {
  type ExportFormat,
  type ExportPlan,
  MAX_PIXELS,
  MAX_SIDE,
  type QualityPreset,
  WEBP_MAX_SIDE,
} from "./presets.ts";

export interface ExportRequest {
  format: ExportFormat;
  preset: QualityPreset;
  /** JPEG and WebP quality 1..100 instead of the preset's (not offered by POST /api/export). */
  quality?: number;
}

/** A decode/encode failure: 500 with a hint, the internal detail only in the logs. */
export class ImageProcessingError extends ApiError {
  constructor(readonly detail: string) {
    super(500, "internal_error", "The image could not be processed.", {
      hint: "The file looks like a PNG, JPEG or WebP but could not be decoded; check that it " +
        "opens in an image viewer, export it again and retry.",
    });
  }
}

/** Checks an upload from its bytes alone (type by magic bytes, size from the header). */
export function planExport(input: Uint8Array, request: ExportRequest): ExportPlan {
  if (input.length === 0) {
    throw invalidRequest("The image part is empty.", {
      hint: "Attach the picture to export as the multipart part named image.",
    });
  }
  const kind = sniffKind(input);
  if (!kind) {
    throw unsupportedValue("image must be a PNG, JPEG or WebP file.", {
      hint: "Upload PNG, JPEG or WebP; the type is read from the file's bytes, not its name " +
        "or declared Content-Type.",
    });
  }
  const info = readImageInfo(kind, input);
  if (!info) throw new ImageProcessingError(`unreadable ${kind} header`);
  if (info.animated) {
    throw unsupportedValue("Animated WebP images are not supported.", {
      hint: "Upload a still image (a single frame).",
    });
  }
  // unsupported_value, not invalid_request: the request is well-formed, but this image's size
  // is outside the supported range, as a format outside png/jpeg/webp would be.
  if (info.width * info.height > MAX_PIXELS || Math.max(info.width, info.height) > MAX_SIDE) {
    throw unsupportedValue(
      `The image is ${info.width}x${info.height} pixels; at most ${MAX_PIXELS / 1e6} ` +
        `megapixels and ${MAX_SIDE} pixels per side are supported.`,
      { hint: "Scale the image down (or export a smaller region) and retry." },
    );
  }
  if (request.format === "webp" && Math.max(info.width, info.height) > WEBP_MAX_SIDE) {
    throw unsupportedValue(
      `The image is ${info.width}x${info.height} pixels; WebP holds at most ${WEBP_MAX_SIDE} ` +
        "pixels per side.",
      { hint: "Export this image as PNG or JPEG, or export a smaller region as WebP." },
    );
  }
  // A JPEG needs at least one Huffman-coded bit per 8x8 block; MozJPEG's decoder pads missing
  // scan data with grey instead of failing, so without this a 3 KB file that claims 49 MP would
  // cost seconds of encoding. The bound is half the true minimum, so no real file trips it.
  if (kind === "jpeg" && input.length < (info.width * info.height) / 1024) {
    throw new ImageProcessingError(
      `jpeg of ${input.length} bytes cannot hold ${info.width}x${info.height} pixels`,
    );
  }
  const { width, height, orientation, hasAlpha, cmyk } = info;
  // Only an RGB profile can describe the RGB output; grey and CMYK ones are converted away.
  const profile = readIcc(kind, input);
  const icc = profile && iccColourSpace(profile) === "RGB" ? profile.slice() : undefined;
  return { kind, ...request, width, height, orientation, hasAlpha, cmyk, ...(icc ? { icc } : {}) };
}
