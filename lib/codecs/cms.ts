/**
 * Colour management for the wasm path: Little CMS 2 (the CMS libvips itself uses) converts CMYK
 * and grey samples through the upload's embedded ICC profile to sRGB, as the sharp path does.
 * Its wasm module comes through the module graph, so this needs no permissions either.
 */
import { instantiate } from "lcms-wasm";
import * as modules from "./wasm_modules.js";

/** The part of lcms-wasm's API used here (the package ships no types). */
interface Lcms {
  cmsOpenProfileFromMem(bytes: Uint8Array, length: number): number;
  cmsCreate_sRGBProfile(): number;
  cmsCloseProfile(profile: number): void;
  cmsCreateTransform(
    input: number,
    inputFormat: number,
    output: number,
    outputFormat: number,
    intent: number,
    flags: number,
  ): number;
  cmsDoTransform(transform: number, samples: Uint8Array, pixels: number): Uint8Array;
  cmsDeleteTransform(transform: number): void;
}

// Little CMS pixel format codes (lcms2.h: COLORSPACE_SH(PT_*) | CHANNELS_SH(n) | BYTES_SH(1)).
const TYPE_CMYK_8 = (6 << 16) | (4 << 3) | 1;
const TYPE_GRAY_8 = (3 << 16) | (1 << 3) | 1;
const TYPE_RGB_8 = (4 << 16) | (3 << 3) | 1;
// sharp converts an embedded profile to sRGB with the perceptual intent; so does this.
const INTENT_PERCEPTUAL = 0;
// Pixels per cmsDoTransform call: bounds the copy into wasm memory (which never shrinks).
const CHUNK_PIXELS = 1 << 18;

let loaded: Promise<Lcms> | undefined;

/** Little CMS, instantiated once from its compiled module. */
export function initCms(): Promise<Lcms> {
  loaded ??= (instantiate as (module: object) => Promise<Lcms>)({
    instantiateWasm(
      imports: WebAssembly.Imports,
      receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
    ) {
      const instance = new WebAssembly.Instance(modules.lcms, imports);
      receive(instance, modules.lcms);
      return instance.exports;
    },
  });
  return loaded;
}

/** The colour spaces an upload's profile may describe and this converts from. */
export type SourceSpace = "CMYK" | "GRAY";

/**
 * RGBA (opaque) from 8-bit CMYK ink amounts (4 per pixel, 0 = no ink) or grey levels (1 per
 * pixel), converted through `profile` to sRGB; undefined when Little CMS cannot use the profile.
 */
export async function toSrgb(
  samples: Uint8Array,
  options: { space: SourceSpace; profile: Uint8Array },
): Promise<Uint8Array | undefined> {
  const lcms = await initCms();
  const input = lcms.cmsOpenProfileFromMem(options.profile, options.profile.length);
  if (!input) return undefined;
  const srgb = lcms.cmsCreate_sRGBProfile();
  const cmyk = options.space === "CMYK";
  const format = cmyk ? TYPE_CMYK_8 : TYPE_GRAY_8;
  const transform = lcms.cmsCreateTransform(input, format, srgb, TYPE_RGB_8, INTENT_PERCEPTUAL, 0);
  lcms.cmsCloseProfile(input);
  lcms.cmsCloseProfile(srgb);
  if (!transform) return undefined; // e.g. a CMYK profile on grey data, or a broken LUT
  try {
    const channels = cmyk ? 4 : 1;
    const pixels = samples.length / channels;
    const out = new Uint8Array(pixels * 4);
    for (let start = 0; start < pixels; start += CHUNK_PIXELS) {
      const count = Math.min(CHUNK_PIXELS, pixels - start);
      const chunk = samples.subarray(start * channels, (start + count) * channels);
      const rgb = lcms.cmsDoTransform(transform, chunk, count);
      for (let i = 0, o = start * 4; i < count * 3; i += 3, o += 4) {
        out[o] = rgb[i];
        out[o + 1] = rgb[i + 1];
        out[o + 2] = rgb[i + 2];
        out[o + 3] = 255;
      }
    }
    return out;
  } finally {
    lcms.cmsDeleteTransform(transform);
  }
}
