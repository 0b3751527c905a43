/** Output formats, quality presets and the per-preset encoder settings of both codec paths. */
import type { BandSettings } from "./png_bands.ts";
import type { RowFilter } from "./png_filters.ts";
import { MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, WEBP_MAX_SIDE } from "../image_limits.ts";

export const EXPORT_FORMATS = ["png", "jpeg", "webp"] as const;
export type ExportFormat = typeof EXPORT_FORMATS[number];

export const QUALITY_PRESETS = ["high", "medium", "low"] as const;
export type QualityPreset = typeof QUALITY_PRESETS[number];

/** Input kinds recognised by their magic bytes. */
export type ImageKind = "png" | "jpeg" | "webp";

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
};

export const EXTENSIONS: Record<ExportFormat, string> = { png: "png", jpeg: "jpg", webp: "webp" };

// Decompression-bomb guard, and what a capture can produce: 128 MP of RGBA is 512 MB before any
// encoder buffers, and wasm memory never shrinks, so anything larger is refused from the header
// before a decoder sees it.
export const MAX_PIXELS = MAX_IMAGE_PIXELS;
// The largest canvas side browsers allow; larger sides are almost always bombs.
export const MAX_SIDE = MAX_IMAGE_SIDE;
export { WEBP_MAX_SIDE };

export interface JpegSettings {
  quality: number;
  /** 1 = 4:4:4 (no chroma subsampling), 2 = 4:2:0. */
  chromaSubsample: 1 | 2;
}

export interface PresetSettings {
  /** MozJPEG, always progressive with optimised Huffman tables. */
  jpeg: JpegSettings;
  /** libwebp lossy quality; method (effort) is always WEBP_METHOD. */
  webpQuality: number;
  png: PngSettings;
}

/**
 * How a preset writes PNG. "lossless": every row filtered (a fixed `filter` strategy, or "best":
 * the strategy whose rows deflate smallest, tried per band), zlib at `level`, in bands that
 * several workers can share (png_bands.ts); "palette": at most 256 colours chosen by
 * libimagequant, dithered, zlib at `level`.
 */
export type PngSettings =
  | { mode: "lossless" } & BandSettings
  | { mode: "palette"; level: number };

type LosslessSettings = { filter: RowFilter; level: number };
// `medium`: libpng's adaptive filters at zlib 6; `high` is never larger (png_bands.ts).
const MEDIUM_PNG: LosslessSettings = { filter: "adaptive", level: 6 };

/**
 * libimagequant settings of PNG `low` on both paths. Quality is pngquant's 0..100 scale: the
 * fewest colours that reach 80, never fewer than needed (no minimum, so no image is refused).
 * `effort` is sharp's name; libimagequant's `speed` is 11 - effort. Dithering 1.0 (full).
 */
export const PALETTE = { quality: 80, effort: 7, speed: 4, dither: 1, colours: 256 } as const;

/** libwebp method 4: its default speed/size balance, used at every preset. */
export const WEBP_METHOD = 4;

/**
 * Lossless PNG of the tiles cut for a model (tiles.ts), sent once and never stored: no row filter
 * and zlib 6. On a 1280x20846 documentation page cut into 23 bands of 906 rows that was both the
 * fastest and the smallest of the settings tried (0.17 s, 2.2 MB; libpng's adaptive filters took
 * 1.0 s for 2.5 MB, zlib 1 without filter 3.2 MB): screenshot text repeats, which prediction
 * breaks up.
 */
export const TILE_PNG = { filter: "none", level: 6 } as const;

/** The preset table (docs/export.md). */
export const PRESETS: Record<QualityPreset, PresetSettings> = {
  // 4:4:4 at high: screenshots are full of coloured text, which 4:2:0 smears.
  high: {
    jpeg: { quality: 90, chromaSubsample: 1 },
    webpQuality: 90,
    // Trials and zlib 9: on the 1080p screenshot fixture 4% larger than oxipng's level 2 in a
    // fifth of the time (oxipng took about a second per 1080p frame on one core). Photo-like
    // bands (the fastest trial keeps over a quarter of the bytes; screenshots keep 1 to 11%)
    // go to libdeflate 10: 6% smaller than zlib 9 there, as oxipng was, at 1.6x zlib's time,
    // where on text it would gain 2 to 4% at 3 to 7x.
    png: {
      mode: "lossless",
      filter: "best",
      level: 9,
      atMost: MEDIUM_PNG,
      nearOptimal: { fromRatio: 0.25, level: 10 },
    },
  },
  medium: {
    jpeg: { quality: 75, chromaSubsample: 2 },
    webpQuality: 75,
    png: { mode: "lossless", ...MEDIUM_PNG },
  },
  low: {
    jpeg: { quality: 60, chromaSubsample: 2 },
    webpQuality: 50,
    png: { mode: "palette", level: 9 },
  },
};

/**
 * The encoder settings of an export: its preset's, with an explicit JPEG and WebP quality in place
 * of the preset's where one was given (a capture re-encoded at the quality its request named).
 */
export function settingsOf(plan: { preset: QualityPreset; quality?: number }): PresetSettings {
  const preset = PRESETS[plan.preset];
  if (plan.quality === undefined) return preset;
  return { ...preset, jpeg: { ...preset.jpeg, quality: plan.quality }, webpQuality: plan.quality };
}

/** Everything an encoder needs to know about one export, decided before decoding. */
export interface ExportPlan {
  kind: ImageKind;
  format: ExportFormat;
  preset: QualityPreset;
  /** JPEG and WebP quality 1..100 instead of the preset's. */
  quality?: number;
  /** A sequential JPEG without trellis quantisation: time over size (ExportRequest.fast). */
  fast?: boolean;
  /** EXIF orientation 1..8 of the input (1 when absent); applied to the pixels. */
  orientation: number;
  /** Whether the input can carry transparency; PNG output keeps an alpha channel only then. */
  hasAlpha: boolean;
  /** Stored (pre-orientation) dimensions from the header. */
  width: number;
  height: number;
  /** A four-component (CMYK or YCCK) JPEG. */
  cmyk: boolean;
  /** The upload's RGB ICC profile, kept in the output; profiles of other spaces are not. */
  icc?: Uint8Array;
}
