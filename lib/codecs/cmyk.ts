/**
 * CMYK and YCCK JPEGs (print files, Photoshop exports). MozJPEG's wasm build cannot hand out
 * their samples, so the wasm path decodes them with libjpeg-turbo's wasm build. With an embedded
 * CMYK profile the ink is converted through it (cms.ts), as libvips does on the sharp path;
 * without one, both paths use the plain formula browsers use (docs/export.md).
 */
import { toSrgb } from "./cms.ts";
import { CodecError } from "./errors.ts";
import type { Pixels } from "./pixels.ts";
import * as modules from "./wasm_modules.js";

// TurboJPEG's pixel format for four-component output (turbojpeg.h: TJPF_CMYK).
const TJPF_CMYK = 11;

interface Turbo {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(pointer: number): void;
  tjInitDecompress(): number;
  tjDestroy(handle: number): number;
  tjDecompressHeader3(...args: number[]): number;
  tjDecompress2(...args: number[]): number;
}

let turbo: Turbo | undefined;

/** A fresh instance: after libjpeg's error exit (a thrown longjmp) the old one may be corrupt. */
function instantiateTurbo(): Turbo {
  const fail = () => {
    throw new Error("libjpeg-turbo called an unsupported system function");
  };
  const instance = new WebAssembly.Instance(modules.jpegTurbo, {
    // libjpeg reports a broken file by longjmp: a JS exception unwinds the wasm stack instead.
    env: { setjmp: () => 0, longjmp: () => fail() },
    wasi_snapshot_preview1: {
      environ_sizes_get: () => 0,
      environ_get: fail,
      proc_exit: fail,
      fd_close: fail,
      fd_seek: fail,
      fd_write: fail,
    },
  });
  return instance.exports as unknown as Turbo;
}

/** The ink amounts (C, M, Y, K per pixel, 0 = no ink) of a four-component JPEG. */
export function decodeInk(bytes: Uint8Array): Pixels {
  const t = turbo ??= instantiateTurbo();
  const input = t.malloc(bytes.length);
  const header = t.malloc(16);
  const handle = t.tjInitDecompress();
  let output = 0;
  try {
    new Uint8Array(t.memory.buffer, input, bytes.length).set(bytes);
    if (
      t.tjDecompressHeader3(
        handle,
        input,
        bytes.length,
        header,
        header + 4,
        header + 8,
        header + 12,
      ) !== 0
    ) {
      throw new Error("unreadable JPEG header");
    }
    const [width, height] = new Uint32Array(t.memory.buffer, header, 2);
    output = t.malloc(width * height * 4);
    if (
      t.tjDecompress2(
        handle,
        input,
        bytes.length,
        output,
        width,
        width * 4,
        height,
        TJPF_CMYK,
        0,
      ) !== 0
    ) {
      throw new Error("undecodable JPEG data");
    }
    // Adobe files (every CMYK JPEG in practice) store inverted ink; YCCK decodes to the same.
    const data = new Uint8Array(t.memory.buffer, output, width * height * 4).map((v) => 255 - v);
    return { data, width, height };
  } catch (error) {
    turbo = undefined;
    throw new CodecError("decode", error);
  } finally {
    if (turbo) {
      t.free(input);
      t.free(header);
      if (output) t.free(output);
      t.tjDestroy(handle);
    }
  }
}

/** A four-component JPEG as RGBA (stored orientation): through `profile` when it has one. */
export async function decodeCmykJpeg(bytes: Uint8Array, profile?: Uint8Array): Promise<Pixels> {
  const ink = decodeInk(bytes);
  const converted = profile && await toSrgb(ink.data, { space: "CMYK", profile });
  return { ...ink, data: converted ?? rgbaFromInk(ink.data) };
}

/**
 * RGBA from ink amounts (C, M, Y, K, 0 = no ink): R = 255 - (C (1 - K/255) + K), the formula
 * browsers apply to a CMYK JPEG without a profile; the sharp path uses it on libvips' samples.
 */
export function rgbaFromInk(cmyk: Uint8Array): Uint8Array {
  const out = new Uint8Array(cmyk.length);
  for (let i = 0; i < cmyk.length; i += 4) {
    const k = cmyk[i + 3];
    const keep = 1 - k / 255;
    out[i] = 255 - Math.min(255, cmyk[i] * keep + k);
    out[i + 1] = 255 - Math.min(255, cmyk[i + 1] * keep + k);
    out[i + 2] = 255 - Math.min(255, cmyk[i + 2] * keep + k);
    out[i + 3] = 255;
  }
  return out;
}
