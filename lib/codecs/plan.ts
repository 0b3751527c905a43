/**
 * What an export will be, read from the upload's bytes alone before any decoder runs: its kind
 * by magic bytes, its size, orientation, alpha and colour profile from the header.
 */
import { ExportFailure } from "./errors.ts";
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
  /**
   * Time over size, as a browser encodes its screenshots: a sequential JPEG without MozJPEG's
   * trellis quantisation (a capture re-encoded to the format it asked for; not offered by POST
   * /api/export).
   */
  fast?: boolean;
}

/** A decode/encode failure; `reason` is for the logs only. */
export function undecodable(reason: string): ExportFailure {
  return new ExportFailure({ kind: "undecodable", reason });
}

/** Checks an upload from its bytes alone (type by magic bytes, size from the header). */
export function planExport(input: Uint8Array, request: ExportRequest): ExportPlan {
  if (input.length === 0) throw new ExportFailure({ kind: "empty" });
  const kind = sniffKind(input);
  if (!kind) throw new ExportFailure({ kind: "not_an_image" });
  const info = readImageInfo(kind, input);
  if (!info) throw undecodable(`unreadable ${kind} header`);
  if (info.animated) throw new ExportFailure({ kind: "animated" });
  if (info.width * info.height > MAX_PIXELS || Math.max(info.width, info.height) > MAX_SIDE) {
    throw new ExportFailure({ kind: "too_large", width: info.width, height: info.height });
  }
  if (request.format === "webp" && Math.max(info.width, info.height) > WEBP_MAX_SIDE) {
    throw new ExportFailure({ kind: "too_tall_for_webp", width: info.width, height: info.height });
  }
  // A JPEG needs at least one Huffman-coded bit per 8x8 block; MozJPEG's decoder pads missing
  // scan data with grey instead of failing, so without this a 3 KB file that claims 49 MP would
  // cost seconds of encoding. The bound is half the true minimum, so no real file trips it.
  if (kind === "jpeg" && input.length < (info.width * info.height) / 1024) {
    throw undecodable(
      `jpeg of ${input.length} bytes cannot hold ${info.width}x${info.height} pixels`,
    );
  }
  const { width, height, orientation, hasAlpha, cmyk } = info;
  // Only an RGB profile can describe the RGB output; grey and CMYK ones are converted away.
  const profile = readIcc(kind, input);
  const icc = profile && iccColourSpace(profile) === "RGB" ? profile.slice() : undefined;
  return { kind, ...request, width, height, orientation, hasAlpha, cmyk, ...(icc ? { icc } : {}) };
}
