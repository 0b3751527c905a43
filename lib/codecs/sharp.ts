/**
 * The native fast path: sharp (libvips, MozJPEG, libwebp, libpng) when FFI is allowed.
 * Same presets and output rules as the wasm path; orientation is applied from our own header
 * parse so both paths agree on every file.
 */
import type SharpModule from "sharp";
import type { Sharp as SharpImage, SharpOptions } from "sharp";
import { rgbaFromInk } from "./cmyk.ts";
import { embedIcc } from "./icc.ts";
import { withoutPngChunks } from "./png_encoder.ts";
import type { PngInput } from "./png_filters.ts";
import {
  EXPORT_FORMATS,
  type ExportPlan,
  MAX_PIXELS,
  PALETTE,
  PRESETS,
  settingsOf,
  WEBP_METHOD,
} from "./presets.ts";

export type Sharp = typeof SharpModule;

/** sharp when it loads (FFI granted, native binary present), else the reason it did not. */
export async function loadSharp(): Promise<{ sharp: Sharp } | { reason: string }> {
  // Never prompt: without --allow-ffi (or on Deno Deploy) the wasm path is the answer.
  const ffi = await Deno.permissions.query({ name: "ffi" }).catch(() => undefined);
  if (ffi?.state !== "granted") return { reason: "FFI permission not granted" };
  try {
    const sharp = (await import("sharp")).default;
    // The cache keeps decoded inputs around; every export is a different image.
    sharp.cache(false);
    return { sharp };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Operations that make stored pixels upright, per EXIF value. sharp mirrors before it rotates,
 * whatever the call order: hence 270 for transpose (5) and 90 for transverse (7).
 */
const ORIENT: Record<number, { rotate?: number; flop?: boolean; flip?: boolean }> = {
  2: { flop: true },
  3: { rotate: 180 },
  4: { flip: true },
  5: { rotate: 270, flop: true },
  6: { rotate: 90 },
  7: { rotate: 90, flop: true },
  8: { rotate: 270 },
};

/**
 * Writes a lossless PNG preset from upright pixels with the band encoder (in wasm Workers, so
 * both paths write the same bytes); sharp itself has neither filter trials nor bands.
 */
export type LosslessEncoder = (image: PngInput) => Promise<Uint8Array<ArrayBuffer>>;

export interface SharpExport {
  input: Uint8Array;
  plan: ExportPlan;
  /** PNG with filter trials (`high`) goes through it when given, else through libpng. */
  encodeLossless?: LosslessEncoder;
}

/**
 * Decodes, orients, (flattens) and encodes one image with sharp. Only an RGB ICC profile is
 * kept (unconverted, like the wasm path); other metadata is not.
 */
export async function exportWithSharp(
  sharp: Sharp,
  { input, plan, encodeLossless }: SharpExport,
): Promise<Uint8Array<ArrayBuffer>> {
  // Defence in depth: the header check already refused larger images.
  const options = { limitInputPixels: MAX_PIXELS, animated: false };
  let image = plan.cmyk && !(await sharp(input, options).metadata()).hasProfile
    ? await fromInk(sharp, input, options)
    : sharp(input, options);
  const orient = ORIENT[plan.orientation];
  if (orient?.rotate) image = image.rotate(orient.rotate);
  if (orient?.flop) image = image.flop();
  if (orient?.flip) image = image.flip();
  // 8-bit sRGB like the wasm path (grey and 16-bit PNGs would otherwise stay grey / 16-bit).
  image = image.toColourspace("srgb");
  // Without this sharp converts a profile's colours to sRGB; the wasm path keeps them as they are.
  if (plan.icc) image = image.keepIccProfile();
  if (plan.format === "png") {
    if (!plan.hasAlpha) image = image.removeAlpha();
    // libpng writes the pixel density (pHYs); outputs carry nothing but pixels and the profile.
    return withoutPngChunks(await encodePng(image, plan, encodeLossless), ["pHYs"]);
  }
  return bytesOf(await lossy(image, plan).toBuffer());
}

/** JPEG (flattened onto white) or WebP at the plan's settings, as every export writes them. */
export function lossy(
  image: SharpImage,
  plan: Pick<ExportPlan, "format" | "preset" | "quality" | "fast">,
): SharpImage {
  const settings = settingsOf(plan);
  if (plan.format === "jpeg") {
    // `fast`: libjpeg-turbo's sequential JPEG, as browsers write; else MozJPEG's smaller one.
    return image.flatten({ background: "#ffffff" }).jpeg({
      quality: settings.jpeg.quality,
      progressive: !plan.fast,
      optimiseCoding: true,
      mozjpeg: !plan.fast,
      chromaSubsampling: settings.jpeg.chromaSubsample === 1 ? "4:4:4" : "4:2:0",
      force: true,
    });
  }
  return image.webp({
    quality: settings.webpQuality,
    effort: WEBP_METHOD,
    alphaQuality: 100,
    smartSubsample: false,
    force: true,
  });
}

async function encodePng(
  image: SharpImage,
  plan: ExportPlan,
  encodeLossless?: LosslessEncoder,
): Promise<Uint8Array<ArrayBuffer>> {
  const png = PRESETS[plan.preset].png;
  if (png.mode === "palette") {
    const { quality, effort, dither, colours } = PALETTE;
    const options = {
      palette: true,
      quality,
      effort,
      dither,
      colours,
      compressionLevel: png.level,
    };
    return bytesOf(await image.png({ ...options, force: true }).toBuffer());
  }
  // A fixed filter is libpng's job: its adaptive filters at zlib 6 wrote 1080p in half the time
  // of the band encoder, at the same size. Only filter trials need the band encoder.
  if (!encodeLossless || png.filter !== "best") {
    const options = { compressionLevel: png.level, adaptiveFiltering: true, palette: false };
    return bytesOf(await image.png({ ...options, force: true }).toBuffer());
  }
  // libvips decodes, orients and converts on its threads; the pixels then go to the workers.
  const { data, info } = await (plan.hasAlpha ? image.ensureAlpha() : image).raw()
    .toBuffer({ resolveWithObject: true });
  const channels = info.channels as 3 | 4;
  const file = await encodeLossless({ data, width: info.width, height: info.height, channels });
  return plan.icc ? embedIcc("png", file, plan.icc) : file;
}

/**
 * A profile-less CMYK or YCCK JPEG as RGBA converted with the plain ink formula, the way
 * browsers show such a file (libvips would use its own generic CMYK profile instead).
 */
async function fromInk(
  sharp: Sharp,
  input: Uint8Array,
  options: SharpOptions,
): Promise<SharpImage> {
  const { data, info } = await sharp(input, options).pipelineColourspace("cmyk")
    .toColourspace("cmyk").raw().toBuffer({ resolveWithObject: true });
  const raw = { width: info.width, height: info.height, channels: 4 as const };
  return sharp(rgbaFromInk(data), { raw });
}

function bytesOf(output: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(output.buffer as ArrayBuffer, output.byteOffset, output.byteLength);
}

/** Runs each output format once on a tiny image, so libvips' first real export pays no setup. */
export async function warmSharp(sharp: Sharp): Promise<void> {
  const background = { r: 255, g: 255, b: 255, alpha: 0.5 };
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background } })
    .png().toBuffer();
  const base = {
    kind: "png",
    preset: "medium",
    orientation: 1,
    hasAlpha: true,
    cmyk: false,
  } as const;
  for (const format of EXPORT_FORMATS) {
    await exportWithSharp(sharp, { input: png, plan: { ...base, format, width: 16, height: 16 } });
  }
}
