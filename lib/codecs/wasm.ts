/**
 * The portable codec path: jSquash (MozJPEG, libwebp, Rust png) in WebAssembly, libjpeg-turbo
 * for CMYK JPEGs, Little CMS for CMYK and grey profiles, and the PNG presets of png_wasm.ts (band
 * encoder, libimagequant). Needs no permissions, so it runs everywhere, Deno Deploy included.
 */
import encodeJpeg, { init as initJpegEncoder } from "@jsquash/jpeg/encode.js";
import decodeJpeg, { init as initJpegDecoder } from "@jsquash/jpeg/decode.js";
import encodeWebp, { init as initWebpEncoder } from "@jsquash/webp/encode.js";
import decodeWebp, { init as initWebpDecoder } from "@jsquash/webp/decode.js";
import decodePng, { init as initPngDecoder } from "@jsquash/png/decode.js";
import { decodeCmykJpeg } from "./cmyk.ts";
import { initCms, toSrgb } from "./cms.ts";
import { CodecError } from "./errors.ts";
import { embedIcc, iccColourSpace, readIcc } from "./icc.ts";
import { readImageInfo } from "./image_info.ts";
import { flattenOnWhite, losslessInput, orientPixels, type Pixels } from "./pixels.ts";
import type { PngInput } from "./png_filters.ts";
import { encodePngPreset, initPngCodecs, type Quantised, quantisePng } from "./png_wasm.ts";
import { type ExportPlan, type ImageKind, PRESETS, settingsOf, WEBP_METHOD } from "./presets.ts";
import * as modules from "./wasm_modules.js";

// jSquash's typings only declare init(options); at run time the first argument may be the module.
type InitWith = (module: WebAssembly.Module) => Promise<unknown>;

const INITIALISERS: Record<string, () => Promise<unknown>> = {
  jpegEncoder: () => (initJpegEncoder as InitWith)(modules.jpegEncoder),
  jpegDecoder: () => (initJpegDecoder as InitWith)(modules.jpegDecoder),
  webpEncoder: () => (initWebpEncoder as InitWith)(modules.webpEncoder),
  webpDecoder: () => (initWebpDecoder as InitWith)(modules.webpDecoder),
  pngDecoder: () => (initPngDecoder as InitWith)(modules.pngDecoder),
};

const DECODER_OF: Record<ImageKind, string> = {
  jpeg: "jpegDecoder",
  webp: "webpDecoder",
  png: "pngDecoder",
};

let instantiated: Promise<unknown> | undefined;
let warmed: Promise<void> | undefined;

/** Every codec instantiated from the modules above (never from a file or URL). */
function instantiate(): Promise<unknown> {
  instantiated ??= Promise.all([
    ...Object.values(INITIALISERS).map((init) => init()),
    initPngCodecs(),
    initCms(),
  ]);
  return instantiated;
}

/** Instantiates every codec and runs each once: the first call is about 1.6x slower otherwise. */
export function initWasmCodecs(): Promise<void> {
  warmed ??= (async () => {
    // Big enough for the JIT to compile the PNG filter loop, small enough to take a few ms.
    const data = new Uint8Array(192 * 192 * 4).map((_, i) => (i * 2654435761) >>> 24);
    const sample: Pixels = { data, width: 192, height: 192 };
    const jpeg = await encodeWasm(sample, { format: "jpeg", preset: "high", hasAlpha: false });
    const webp = await encodeWasm(sample, { format: "webp", preset: "medium", hasAlpha: true });
    const png = await encodeWasm(sample, { format: "png", preset: "medium", hasAlpha: true });
    await encodeWasm(sample, { format: "png", preset: "medium", hasAlpha: false });
    await encodeWasm(sample, { format: "png", preset: "low", hasAlpha: true });
    await encodeWasm(sample, { format: "png", preset: "high", hasAlpha: false });
    await decodeWasm("jpeg", jpeg);
    await decodeWasm("webp", webp);
    await decodeWasm("png", png);
  })();
  return warmed;
}

/**
 * Decodes PNG, JPEG or WebP bytes to 8-bit RGBA with the stored (unrotated) orientation;
 * `cmyk` marks a four-component JPEG (from the header), which MozJPEG's build cannot convert.
 * CMYK and grey samples are converted through an embedded profile of their space, as libvips
 * does on the sharp path; RGB profiles are left to the output (kept, never applied).
 */
export async function decodeWasm(
  kind: ImageKind,
  bytes: Uint8Array,
  cmyk = false,
): Promise<Pixels> {
  await instantiate();
  const profile = readIcc(kind, bytes);
  const space = profile && iccColourSpace(profile);
  try {
    if (kind === "jpeg" && cmyk) {
      return await decodeCmykJpeg(bytes, space === "CMYK" ? profile : undefined);
    }
    const decoded = await decodeRgba(kind, bytes);
    // libvips applies a grey profile only to a file stored as grey; so does this path.
    const grey = space === "GRAY" && readImageInfo(kind, bytes)?.grey;
    return grey ? await throughGreyProfile(decoded, profile!) : decoded;
  } catch (error) {
    if (error instanceof CodecError) throw error;
    // A trapped or aborted Emscripten module may be left unusable: start a fresh instance.
    await INITIALISERS[DECODER_OF[kind]]().catch(() => {});
    throw new CodecError("decode", error);
  }
}

async function decodeRgba(kind: ImageKind, bytes: Uint8Array): Promise<Pixels> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const image = kind === "jpeg"
    // preserveOrientation false = the stored pixels; orientation is applied by orientPixels.
    ? await decodeJpeg(buffer as ArrayBuffer, { preserveOrientation: false })
    : kind === "webp"
    ? await decodeWebp(buffer as ArrayBuffer)
    : await decodePng(buffer as ArrayBuffer);
  const { data, width, height } = image;
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height };
}

/** Grey pixels (decoded as RGBA, R = G = B) through their grey profile, alpha kept. */
async function throughGreyProfile(pixels: Pixels, profile: Uint8Array): Promise<Pixels> {
  const { data } = pixels;
  const grey = new Uint8Array(data.length / 4);
  for (let i = 0; i < grey.length; i++) grey[i] = data[i * 4];
  const rgba = await toSrgb(grey, { space: "GRAY", profile });
  if (!rgba) return pixels;
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = data[i];
  return { ...pixels, data: rgba };
}

/** Encodes upright RGBA pixels at a preset; JPEG is flattened onto white first. */
export async function encodeWasm(
  pixels: Pixels,
  plan: Pick<ExportPlan, "format" | "preset" | "hasAlpha" | "quality" | "fast">,
): Promise<Uint8Array<ArrayBuffer>> {
  await instantiate();
  const settings = settingsOf(plan);
  try {
    if (plan.format === "png") {
      return await encodePngPreset(pixels, { png: settings.png, hasAlpha: plan.hasAlpha });
    }
    const image = imageData(pixels);
    if (plan.format === "jpeg") {
      if (plan.hasAlpha) flattenOnWhite(pixels.data);
      return new Uint8Array(
        await encodeJpeg(image, {
          quality: settings.jpeg.quality,
          baseline: false,
          // MozJPEG only here: `fast` drops its progressive scans, the larger part of its time.
          progressive: !plan.fast,
          optimize_coding: true,
          auto_subsample: false,
          chroma_subsample: settings.jpeg.chromaSubsample,
        }),
      );
    }
    return new Uint8Array(
      await encodeWebp(image, { quality: settings.webpQuality, method: WEBP_METHOD }),
    );
  } catch (error) {
    throw new CodecError("encode", error);
  }
}

/**
 * The whole wasm export: decode, orient, (flatten), encode, then the upload's RGB ICC profile
 * is embedded as sharp's `keepIccProfile` does. No other metadata is ever copied.
 */
export async function exportWithWasm(
  input: Uint8Array,
  plan: ExportPlan,
): Promise<Uint8Array<ArrayBuffer>> {
  const encoded = await encodeWasm(await uprightPixels(input, plan), plan);
  return plan.icc ? embedIcc(plan.format, encoded, plan.icc) : encoded;
}

/** The upright pixels of an upload as a lossless PNG of `plan` is written from them. */
export async function pixelsForPng(input: Uint8Array, plan: ExportPlan): Promise<PngInput> {
  return losslessInput(await uprightPixels(input, plan), plan.hasAlpha);
}

/**
 * The upload quantised for its PNG `low`: a palette and the upright pixels to remap in bands, or
 * the finished PNG when its rows cannot be banded. The ICC profile is left to the caller.
 */
export async function quantisedForPng(input: Uint8Array, plan: ExportPlan): Promise<Quantised> {
  const { png } = PRESETS[plan.preset];
  if (png.mode !== "palette") throw new Error(`${plan.preset} PNG is not a palette`);
  const pixels = await uprightPixels(input, plan);
  return await quantisePng(pixels, { hasAlpha: plan.hasAlpha, level: png.level });
}

/** The upload decoded and turned upright (its EXIF orientation applied). */
async function uprightPixels(input: Uint8Array, plan: ExportPlan): Promise<Pixels> {
  await initWasmCodecs();
  return orientPixels(await decodeWasm(plan.kind, input, plan.cmyk), plan.orientation);
}

function imageData(pixels: Pixels): ImageData {
  const data = new Uint8ClampedArray(
    pixels.data.buffer,
    pixels.data.byteOffset,
    pixels.data.byteLength,
  );
  return { data, width: pixels.width, height: pixels.height, colorSpace: "srgb" } as ImageData;
}
