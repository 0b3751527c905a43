/**
 * libdeflate (Eric Biggers; MIT), whole-buffer raw DEFLATE, from the WebAssembly vendored by
 * scripts/vendor_libdeflate.ts. Its levels 10 to 12 parse near-optimally: on photo-like PNG rows
 * 6% smaller than zlib 9 (what oxipng uses it for). The module is instantiated here with its two
 * imports rather than through the package's Emscripten glue, which would install process-wide
 * error handlers under Deno; it comes through the module graph, so no permission is needed.
 */
import manifest from "./vendor/libdeflate.json" with { type: "json" };
import * as modules from "./wasm_modules.js";

const WASM_PAGE = 65536;
// The module's own ceiling (Emscripten's default maximum heap).
const MAX_HEAP = 2 ** 31;

interface Exports {
  memory: WebAssembly.Memory;
  init(): void;
  malloc(size: number): number;
  free(pointer: number): void;
  allocCompressor(level: number): number;
  freeCompressor(compressor: number): void;
  deflateCompress(
    compressor: number,
    input: number,
    size: number,
    out: number,
    max: number,
  ): number;
  deflateCompressBound(compressor: number, size: number): number;
}

let loaded: Exports | undefined;
// Allocated once per level and kept: levels 10 to 12 allocate several MB of match-finder state.
const compressors = new Map<number, number>();

function instantiate(): Exports {
  const { module, resizeHeap, memcpyBig } = manifest.imports;
  // The imports run only after the instance exists (from malloc, never during instantiation).
  const memory = () => instance.exports[manifest.exports.memory] as WebAssembly.Memory;
  const imports = {
    [module]: {
      [resizeHeap]: (requested: number) => {
        const size = requested >>> 0;
        if (size > MAX_HEAP) return 0;
        try {
          memory().grow(Math.ceil((size - memory().buffer.byteLength) / WASM_PAGE));
          return 1;
        } catch {
          return 0;
        }
      },
      [memcpyBig]: (dest: number, src: number, length: number) => {
        new Uint8Array(memory().buffer).copyWithin(dest, src, src + length);
      },
    },
  };
  const instance = new WebAssembly.Instance(modules.libdeflate, imports);
  const named = Object.fromEntries(
    Object.entries(manifest.exports).map(([name, symbol]) => [name, instance.exports[symbol]]),
  ) as unknown as Exports;
  named.init();
  return named;
}

/** Raw DEFLATE (no zlib header or checksum) of `input` at libdeflate `level` (1..12). */
export function libdeflateRaw(input: Uint8Array, level: number): Uint8Array<ArrayBuffer> {
  if (!Number.isInteger(level) || level < 1 || level > 12) {
    throw new RangeError(`libdeflate levels are 1 to 12, not ${level}`);
  }
  const lib = loaded ??= instantiate();
  let compressor = compressors.get(level);
  if (compressor === undefined) {
    compressor = lib.allocCompressor(level);
    if (!compressor) throw new Error("libdeflate: out of memory for a compressor");
    compressors.set(level, compressor);
  }
  const bound = lib.deflateCompressBound(compressor, input.length);
  const inputAt = lib.malloc(Math.max(1, input.length));
  const outputAt = lib.malloc(bound);
  try {
    if (!inputAt || !outputAt) throw new Error("libdeflate: out of memory");
    new Uint8Array(lib.memory.buffer).set(input, inputAt);
    const written = lib.deflateCompress(compressor, inputAt, input.length, outputAt, bound);
    if (written === 0) throw new Error("libdeflate: output larger than its own bound");
    return new Uint8Array(lib.memory.buffer).slice(outputAt, outputAt + written);
  } finally {
    lib.free(outputAt);
    lib.free(inputAt);
  }
}
