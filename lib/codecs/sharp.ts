/**
 * The native fast path: sharp (libvips, MozJPEG, libwebp, libpng) when FFI is allowed.
 * Same presets and output rules as the wasm path; orientation is applied from our own header
 * parse so both paths agree on every file.
 */
import type SharpModule from "sharp";
import { EXPORT_FORMATS, type ExportPlan, MAX_PIXELS, PRESETS, WEBP_METHOD } from "./presets.ts";

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

/** Decodes, orients, (flattens) and encodes one image with sharp; metadata is not kept. */
export async function exportWithSharp(
  sharp: Sharp,
  input: Uint8Array,
  plan: ExportPlan,
): Promise<Uint8Array<ArrayBuffer>> {
  const settings = PRESETS[plan.preset];
  // Defence in depth: the header check already refused larger images.
  let image = sharp(input, { limitInputPixels: MAX_PIXELS, animated: false });
  const orient = ORIENT[plan.orientation];
  if (orient?.rotate) image = image.rotate(orient.rotate);
  if (orient?.flop) image = image.flop();
  if (orient?.flip) image = image.flip();
  // 8-bit sRGB like the wasm path (grey and 16-bit PNGs would otherwise stay grey / 16-bit).
  image = image.toColourspace("srgb");
  if (plan.format === "png") {
    if (!plan.hasAlpha) image = image.removeAlpha();
    image = image.png({
      compressionLevel: settings.pngLevel,
      adaptiveFiltering: true,
      palette: false,
      force: true,
    });
  } else if (plan.format === "jpeg") {
    image = image.flatten({ background: "#ffffff" }).jpeg({
      quality: settings.jpeg.quality,
      progressive: true,
      optimiseCoding: true,
      mozjpeg: true,
      chromaSubsampling: settings.jpeg.chromaSubsample === 1 ? "4:4:4" : "4:2:0",
      force: true,
    });
  } else {
    image = image.webp({
      quality: settings.webpQuality,
      effort: WEBP_METHOD,
      alphaQuality: 100,
      smartSubsample: false,
      force: true,
    });
  }
  const output = await image.toBuffer();
  return new Uint8Array(output.buffer as ArrayBuffer, output.byteOffset, output.byteLength);
}

/** Runs each output format once on a tiny image, so libvips' first real export pays no setup. */
export async function warmSharp(sharp: Sharp): Promise<void> {
  const background = { r: 255, g: 255, b: 255, alpha: 0.5 };
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background } })
    .png().toBuffer();
  const base = { kind: "png", preset: "medium", orientation: 1, hasAlpha: true } as const;
  for (const format of EXPORT_FORMATS) {
    await exportWithSharp(sharp, png, { ...base, format, width: 16, height: 16 });
  }
}
