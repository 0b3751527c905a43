/**
 * Lossless PNG encoder with libpng's adaptive filtering: each row gets the filter (None, Sub,
 * Up, Average, Paeth) whose output has the smallest sum of absolute values, then zlib deflate.
 * `@jsquash/png` never filters and oxipng is far too slow, hence this small encoder.
 */
import { deflateSync } from "node:zlib";
import { concatBytes } from "../bytes.ts";

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const COLOR_TYPE = { 3: 2, 4: 6 } as const; // truecolour, truecolour with alpha

export interface PngInput {
  /** 8-bit samples, `channels` per pixel (3 = RGB, 4 = RGBA), rows top to bottom. */
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** Encodes 8-bit RGB(A) pixels as a PNG with adaptive per-row filters at a zlib level (0..9). */
export function encodePng(image: PngInput, level: number): Uint8Array<ArrayBuffer> {
  const filtered = filterRows(image);
  const idat = deflateSync(filtered, { level });
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, image.width);
  view.setUint32(4, image.height);
  ihdr.set([8, COLOR_TYPE[image.channels], 0, 0, 0], 8); // depth, colour, deflate, adaptive, no interlace
  const parts = [
    Uint8Array.from(SIGNATURE),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", new Uint8Array(idat.buffer, idat.byteOffset, idat.byteLength)),
    pngChunk("IEND", new Uint8Array(0)),
  ];
  return concatBytes(parts);
}

/** The filtered scanlines (filter byte + row), choosing the filter per row. */
export function filterRows({ data, width, height, channels }: PngInput): Uint8Array {
  const stride = width * channels;
  const out = new Uint8Array((stride + 1) * height);
  const zero = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const row = data.subarray(y * stride, (y + 1) * stride);
    const prev = y === 0 ? zero : data.subarray((y - 1) * stride, y * stride);
    const filter = bestFilter(row, prev, channels);
    const dest = y * (stride + 1);
    out[dest] = filter;
    applyFilter(filter, row, prev, channels, out.subarray(dest + 1, dest + 1 + stride));
  }
  return out;
}

/** libpng's heuristic: a filtered byte counts as a signed value, smaller sums deflate better. */
function bestFilter(row: Uint8Array, prev: Uint8Array, bpp: number): number {
  let none = 0, sub = 0, up = 0, avg = 0, paeth = 0;
  for (let i = 0; i < row.length; i++) {
    const x = row[i];
    const a = i >= bpp ? row[i - bpp] : 0;
    const b = prev[i];
    const c = i >= bpp ? prev[i - bpp] : 0;
    none += cost(x);
    sub += cost(x - a);
    up += cost(x - b);
    avg += cost(x - ((a + b) >> 1));
    paeth += cost(x - predictPaeth(a, b, c));
  }
  let best = 0, bestSum = none;
  if (sub < bestSum) (best = 1), (bestSum = sub);
  if (up < bestSum) (best = 2), (bestSum = up);
  if (avg < bestSum) (best = 3), (bestSum = avg);
  if (paeth < bestSum) best = 4;
  return best;
}

function applyFilter(
  filter: number,
  row: Uint8Array,
  prev: Uint8Array,
  bpp: number,
  out: Uint8Array,
): void {
  for (let i = 0; i < row.length; i++) {
    const a = i >= bpp ? row[i - bpp] : 0;
    const b = prev[i];
    const c = i >= bpp ? prev[i - bpp] : 0;
    const predicted = filter === 0
      ? 0
      : filter === 1
      ? a
      : filter === 2
      ? b
      : filter === 3
      ? (a + b) >> 1
      : predictPaeth(a, b, c);
    out[i] = (row[i] - predicted) & 0xff;
  }
}

function cost(delta: number): number {
  const v = delta & 0xff;
  return v < 128 ? v : 256 - v;
}

function predictPaeth(a: number, b: number, c: number): number {
  const pa = Math.abs(b - c);
  const pb = Math.abs(a - c);
  const pc = Math.abs(a + b - 2 * c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/** One PNG chunk: length, type, data and CRC-32. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309), as PNG chunks and zip entries use it. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
