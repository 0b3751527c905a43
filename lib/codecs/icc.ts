/**
 * ICC colour profiles: read from an upload (PNG iCCP, JPEG APP2, WebP ICCP) and written into an
 * export the same way, so both codec paths keep a Display P3 (or any RGB) profile untouched and a
 * browser shows the exported file exactly as it showed the upload (docs/export.md).
 */
import { deflateSync, inflateSync } from "node:zlib";
import { pngChunk } from "./png_encoder.ts";
import type { ExportFormat, ImageKind } from "./presets.ts";
import { concatBytes } from "../bytes.ts";

// A real profile is a few hundred bytes to a few hundred KB; a compressed iCCP chunk that claims
// more is a decompression bomb, not a profile.
const MAX_PROFILE_BYTES = 4 * 1024 * 1024;
const JPEG_ICC_TAG = "ICC_PROFILE\0";
// An APP2 segment holds 65535 bytes: length (2), tag (12), sequence number and count (2).
const JPEG_ICC_CHUNK = 65535 - 2 - JPEG_ICC_TAG.length - 2;

/** The embedded ICC profile of an upload, or undefined when it has none (or a broken one). */
export function readIcc(kind: ImageKind, bytes: Uint8Array): Uint8Array | undefined {
  try {
    const icc = kind === "png" ? pngIcc(bytes) : kind === "jpeg" ? jpegIcc(bytes) : webpIcc(bytes);
    // The header is 128 bytes and starts with the profile's own length.
    return icc && icc.length >= 128 ? icc : undefined;
  } catch {
    return undefined; // a damaged profile is dropped, as viewers do, rather than failing
  }
}

/** The profile's data colour space from its header: "RGB", "GRAY", "CMYK", ... */
export function iccColourSpace(icc: Uint8Array): string {
  return String.fromCharCode(...icc.subarray(16, 20)).trim();
}

/** The encoded file with `icc` embedded where its format keeps a profile. */
export function embedIcc(
  format: ExportFormat,
  file: Uint8Array<ArrayBuffer>,
  icc: Uint8Array,
): Uint8Array<ArrayBuffer> {
  if (format === "png") return embedPng(file, icc);
  if (format === "jpeg") return embedJpeg(file, icc);
  return embedWebp(file, icc);
}

function pngIcc(bytes: Uint8Array): Uint8Array | undefined {
  const view = viewOf(bytes);
  for (let offset = 8; offset + 8 <= bytes.length;) {
    const length = view.getUint32(offset);
    const type = ascii(bytes, offset + 4, 4);
    if (type === "IDAT" || type === "IEND") return undefined; // iCCP must precede the image data
    if (type === "iCCP") {
      const data = bytes.subarray(offset + 8, offset + 8 + length);
      const nameEnd = data.indexOf(0);
      // Name, NUL, compression method 0 (zlib), then the compressed profile.
      if (nameEnd < 1 || data[nameEnd + 1] !== 0) return undefined;
      const profile = inflateSync(data.subarray(nameEnd + 2), {
        maxOutputLength: MAX_PROFILE_BYTES,
      });
      return new Uint8Array(profile.buffer, profile.byteOffset, profile.byteLength);
    }
    offset += 12 + length;
  }
  return undefined;
}

function jpegIcc(bytes: Uint8Array): Uint8Array | undefined {
  const parts: Uint8Array[] = [];
  for (let offset = 2; offset + 4 <= bytes.length && bytes[offset] === 0xff;) {
    const marker = bytes[offset + 1];
    if (marker === 0xda || marker === 0xd9) break; // scan data: no more header segments
    const length = (bytes[offset + 2] << 8) | bytes[offset + 3];
    const data = bytes.subarray(offset + 4, offset + 2 + length);
    if (marker === 0xe2 && ascii(data, 0, JPEG_ICC_TAG.length) === JPEG_ICC_TAG) {
      // Segments carry their 1-based sequence number; writers emit them in order, but sort anyway.
      parts[data[JPEG_ICC_TAG.length] - 1] = data.subarray(JPEG_ICC_TAG.length + 2);
    }
    offset += 2 + length;
  }
  if (parts.length === 0 || parts.some((p) => p === undefined)) return undefined;
  return concatBytes(parts);
}

function webpIcc(bytes: Uint8Array): Uint8Array | undefined {
  const view = viewOf(bytes);
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const size = view.getUint32(offset + 4, true);
    if (ascii(bytes, offset, 4) === "ICCP") return bytes.subarray(offset + 8, offset + 8 + size);
    offset += 8 + size + (size & 1);
  }
  return undefined;
}

function embedPng(file: Uint8Array<ArrayBuffer>, icc: Uint8Array): Uint8Array<ArrayBuffer> {
  // Name, NUL, compression method 0 (zlib), then the profile at zlib's best level (it is small).
  const data = concatBytes([asciiBytes("ICC Profile\0\0"), deflate(icc)]);
  // Right after IHDR (8-byte signature + 25-byte IHDR chunk): before PLTE and IDAT, as required.
  return concatBytes([file.subarray(0, 33), pngChunk("iCCP", data), file.subarray(33)]);
}

function embedJpeg(file: Uint8Array<ArrayBuffer>, icc: Uint8Array): Uint8Array<ArrayBuffer> {
  const count = Math.ceil(icc.length / JPEG_ICC_CHUNK);
  const segments = Array.from({ length: count }, (_, i) => {
    const part = icc.subarray(i * JPEG_ICC_CHUNK, (i + 1) * JPEG_ICC_CHUNK);
    const length = 2 + JPEG_ICC_TAG.length + 2 + part.length;
    const head = Uint8Array.from([0xff, 0xe2, length >> 8, length & 0xff]);
    return concatBytes([head, asciiBytes(JPEG_ICC_TAG), Uint8Array.of(i + 1, count), part]);
  });
  // After SOI and a JFIF APP0 when there is one: JFIF readers expect APP0 first.
  let at = 2;
  if (file[2] === 0xff && file[3] === 0xe0) at = 4 + ((file[4] << 8) | file[5]);
  return concatBytes([file.subarray(0, at), ...segments, file.subarray(at)]);
}

function embedWebp(file: Uint8Array<ArrayBuffer>, icc: Uint8Array): Uint8Array<ArrayBuffer> {
  const view = viewOf(file);
  const first = ascii(file, 12, 4);
  const iccp = riffChunk("ICCP", icc);
  let body: Uint8Array;
  if (first === "VP8X") {
    // The ICCP chunk must follow VP8X directly; flag 0x20 announces it.
    const vp8x = file.slice(12, 30);
    vp8x[8] |= 0x20;
    body = concatBytes([asciiBytes("WEBP"), vp8x, iccp, file.subarray(30)]);
  } else {
    // A simple file (one VP8 or VP8L chunk) becomes an extended one: VP8X, ICCP, image.
    const vp8l = first === "VP8L";
    const bits = vp8l ? view.getUint32(21, true) : 0;
    const width = vp8l ? (bits & 0x3fff) + 1 : view.getUint16(26, true) & 0x3fff;
    const height = vp8l ? ((bits >>> 14) & 0x3fff) + 1 : view.getUint16(28, true) & 0x3fff;
    const flags = 0x20 | (vp8l && (bits >>> 28) & 1 ? 0x10 : 0);
    const data = new Uint8Array(10);
    data[0] = flags;
    data.set(uint24(width - 1), 4);
    data.set(uint24(height - 1), 7);
    body = concatBytes([asciiBytes("WEBP"), riffChunk("VP8X", data), iccp, file.subarray(12)]);
  }
  const size = new Uint8Array(4);
  new DataView(size.buffer).setUint32(0, body.length, true);
  return concatBytes([asciiBytes("RIFF"), size, body]);
}

function riffChunk(type: string, data: Uint8Array): Uint8Array {
  const head = new Uint8Array(8);
  head.set(asciiBytes(type));
  new DataView(head.buffer).setUint32(4, data.length, true);
  return concatBytes([head, data, new Uint8Array(data.length & 1)]);
}

function deflate(bytes: Uint8Array): Uint8Array {
  const out = deflateSync(bytes, { level: 9 });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}

function asciiBytes(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function uint24(n: number): Uint8Array {
  return Uint8Array.of(n & 255, (n >> 8) & 255, (n >> 16) & 255);
}
