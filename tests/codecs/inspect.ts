/** Reads encoder output the way a strict viewer would: markers, chunks, filter bytes. */
import { inflateSync } from "node:zlib";
import { concatBytes } from "../../lib/bytes.ts";
import { pngChunks } from "../../testing/png.ts";

/** JPEG segments in order (marker and payload), up to the first scan's end. */
export function jpegSegments(bytes: Uint8Array): { marker: number; data: Uint8Array }[] {
  const segments = [];
  let offset = 2;
  while (offset + 4 <= bytes.length && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1];
    const length = (bytes[offset + 2] << 8) | bytes[offset + 3];
    segments.push({ marker, data: bytes.subarray(offset + 4, offset + 2 + length) });
    if (marker === 0xda) break; // entropy-coded data follows
    offset += 2 + length;
  }
  return segments;
}

// Bit counts of the four example tables of ITU T.81 Annex K (what a non-optimising encoder uses).
const STANDARD_HUFFMAN_BITS = [
  [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
  [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
  [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
  [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
].map((bits) => bits.join(","));

/** Whether a JPEG is progressive (SOF2) and every Huffman table differs from the standard ones. */
export function jpegTraits(bytes: Uint8Array): { progressive: boolean; optimisedTables: boolean } {
  // 0xFF 0xC4 cannot occur inside entropy-coded data (0xFF is stuffed there), so every match is a
  // DHT segment, including the ones a progressive file puts between its scans.
  const tables: string[] = [];
  for (let i = 2; i + 4 < bytes.length; i++) {
    if (bytes[i] !== 0xff || bytes[i + 1] !== 0xc4) continue;
    const end = i + 2 + ((bytes[i + 2] << 8) | bytes[i + 3]);
    for (let offset = i + 4; offset < end;) {
      const bits = Array.from(bytes.subarray(offset + 1, offset + 17));
      tables.push(bits.join(","));
      offset += 17 + bits.reduce((n, b) => n + b, 0);
    }
  }
  return {
    progressive: jpegSegments(bytes).some((s) => s.marker === 0xc2),
    optimisedTables: tables.length > 0 && tables.every((t) => !STANDARD_HUFFMAN_BITS.includes(t)),
  };
}

/** The filter type byte of every row of a non-interlaced 8-bit PNG. */
export function pngRowFilters(bytes: Uint8Array): number[] {
  const chunks = pngChunks(bytes);
  const ihdr = new DataView(chunks[0].data.buffer, chunks[0].data.byteOffset, 13);
  const width = ihdr.getUint32(0);
  const height = ihdr.getUint32(4);
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[chunks[0].data[9]] ?? 1;
  const idat = chunks.filter((c) => c.type === "IDAT").map((c) => c.data);
  const raw = inflateSync(concatBytes(idat));
  const stride = width * channels + 1;
  return Array.from({ length: height }, (_, y) => raw[y * stride]);
}

/** RIFF chunk types of a WebP file. */
export function webpChunkTypes(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const types = [];
  for (let offset = 12; offset + 8 <= bytes.length;) {
    types.push(String.fromCharCode(...bytes.subarray(offset, offset + 4)));
    const size = view.getUint32(offset + 4, true);
    offset += 8 + size + (size & 1);
  }
  return types;
}

/** Whether any EXIF/XMP/text metadata survived in an output file. */
export function carriesMetadata(format: string, bytes: Uint8Array): boolean {
  if (format === "jpeg") return jpegSegments(bytes).some((s) => s.marker === 0xe1);
  if (format === "png") {
    return pngChunks(bytes).some((c) => ["eXIf", "tEXt", "iTXt", "zTXt"].includes(c.type));
  }
  return webpChunkTypes(bytes).some((t) => t === "EXIF" || t === "XMP ");
}

/**
 * Mean absolute difference per channel (R, G, B, A) of two same-sized RGBA images, colours
 * weighted by their alpha: what a viewer shows, so hidden colours under transparency don't count.
 */
export function meanAbsoluteError(
  a: { data: Uint8Array },
  b: { data: Uint8Array },
): [number, number, number, number] {
  if (a.data.length !== b.data.length) throw new Error("images differ in size");
  const sums = [0, 0, 0, 0];
  const shown = (data: Uint8Array, i: number) =>
    i % 4 === 3 ? data[i] : (data[i] * data[i - (i % 4) + 3]) / 255;
  for (let i = 0; i < a.data.length; i++) {
    sums[i % 4] += Math.abs(shown(a.data, i) - shown(b.data, i));
  }
  const pixels = a.data.length / 4;
  return sums.map((s) => s / pixels) as [number, number, number, number];
}
