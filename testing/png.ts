/** Reads PNG files the way the tests need: the chunk list and the size in the header. */

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

export interface PngChunk {
  type: string;
  /** Where the chunk starts (its length field) in the file. */
  offset: number;
  /** The chunk's data, cut short where the file ends before the declared length. */
  data: Uint8Array;
  /** The stored CRC, or undefined when the file ends before it. */
  crc?: number;
}

/** Every chunk after the signature, in file order, as far as whole chunk headers go. */
export function pngChunks(png: Uint8Array): PngChunk[] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const chunks: PngChunk[] = [];
  for (let offset = 8; offset + 8 <= png.length;) {
    const length = view.getUint32(offset);
    const end = offset + 8 + length;
    chunks.push({
      type: String.fromCharCode(...png.subarray(offset + 4, offset + 8)),
      offset,
      data: png.subarray(offset + 8, end),
      crc: end + 4 <= png.length ? view.getUint32(end) : undefined,
    });
    offset = end + 4;
  }
  return chunks;
}

/** Width and height from the IHDR (bytes 16..23); throws for a file without the PNG signature. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  if (!SIGNATURE.every((byte, i) => png[i] === byte)) throw new Error("not a PNG file");
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
