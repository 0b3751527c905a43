/**
 * Generators for malformed and hostile images (bombs, truncations, lying headers), built byte by
 * byte so each lie is exactly the one named. Real JPEG and WebP files to corrupt are passed in.
 */
import { deflateSync } from "node:zlib";
import { concatBytes } from "../lib/bytes.ts";
import { crc32, pngChunk } from "../lib/codecs/png_encoder.ts";
import { pngChunks } from "./png.ts";

/** What the export must do with a file. */
export type BadImageExpectation =
  /** 400 unsupported_value from the header check, before any decoder runs. */
  | "pixel_limit"
  /** 400 unsupported_value: the bytes are not PNG, JPEG or WebP. */
  | "not_an_image"
  /** Decoded safely (200) or 500 internal_error; either way with bounded memory. */
  | "safe";

export interface BadImage {
  name: string;
  bytes: Uint8Array<ArrayBuffer>;
  /** Declared in the multipart part: a lie for some (the service must read the bytes). */
  contentType: string;
  filename: string;
  expect: BadImageExpectation;
}

const ascii = (text: string) => new TextEncoder().encode(text);
const PNG_SIGNATURE = Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10]);

function ihdr(width: number, height: number): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  data.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, adaptive filter, no interlace
  return pngChunk("IHDR", data);
}

/** A PNG whose IHDR declares `width`x`height` and whose IDAT holds only `rows` rows of zeros. */
export function pngDeclaring(width: number, height: number, rows = 1): Uint8Array<ArrayBuffer> {
  const raw = new Uint8Array(Math.min(rows, height) * (1 + width * 3));
  return concatBytes([
    PNG_SIGNATURE,
    ihdr(width, height),
    pngChunk("IDAT", new Uint8Array(deflateSync(raw))),
    pngChunk("IEND", new Uint8Array()),
  ]);
}

/** A complete, valid grey PNG, with extra chunks placed before its image data. */
export function validPng(width: number, height: number, extra: Uint8Array[] = []) {
  const row = new Uint8Array(1 + width * 3).fill(128);
  row[0] = 0;
  const raw = new Uint8Array(row.length * height);
  for (let y = 0; y < height; y++) raw.set(row, y * row.length);
  return concatBytes([
    PNG_SIGNATURE,
    ihdr(width, height),
    ...extra,
    pngChunk("IDAT", new Uint8Array(deflateSync(raw))),
    pngChunk("IEND", new Uint8Array()),
  ]);
}

/** A zlib stream that inflates to `megabytes` MB of zeros (about 1000:1). */
function zeros(megabytes: number): Uint8Array {
  return new Uint8Array(deflateSync(new Uint8Array(megabytes * 1024 * 1024), { level: 9 }));
}

/** zTXt (compressed text) whose text inflates to `megabytes` MB. */
export function ztxtBomb(megabytes: number) {
  return pngChunk("zTXt", concatBytes([ascii("Comment\0\0"), zeros(megabytes)]));
}

/** iCCP (colour profile) whose profile inflates to `megabytes` MB. */
export function iccpBomb(megabytes: number) {
  return pngChunk("iCCP", concatBytes([ascii("icc\0\0"), zeros(megabytes)]));
}

/** A valid PNG whose IDAT length field claims nearly 2 GiB. */
export function pngLyingChunkLength(): Uint8Array<ArrayBuffer> {
  const png = validPng(16, 16);
  const idat = pngChunks(png).find((chunk) => chunk.type === "IDAT")!;
  new DataView(png.buffer).setUint32(idat.offset, 0x7ffffff0);
  return png;
}

/** The first `fraction` of a file. */
export function truncated(bytes: Uint8Array, fraction: number): Uint8Array<ArrayBuffer> {
  return bytes.slice(0, Math.max(1, Math.floor(bytes.length * fraction)));
}

/** The JPEG with its frame header (SOFn) rewritten to declare `width`x`height`. */
export function jpegDeclaring(jpeg: Uint8Array, width: number, height: number) {
  const out = jpeg.slice();
  for (let offset = 2; offset + 9 < out.length;) {
    const marker = out[offset + 1];
    const length = (out[offset + 2] << 8) | out[offset + 3];
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      out.set([height >> 8, height & 255, width >> 8, width & 255], offset + 5);
      return out;
    }
    offset += 2 + length;
  }
  throw new Error("no SOF marker");
}

/** The RIFF chunks of a WebP file: [fourcc, payload]. */
function webpChunks(webp: Uint8Array): [string, Uint8Array][] {
  const view = new DataView(webp.buffer, webp.byteOffset, webp.byteLength);
  const chunks: [string, Uint8Array][] = [];
  for (let offset = 12; offset + 8 <= webp.length;) {
    const size = view.getUint32(offset + 4, true);
    chunks.push([
      String.fromCharCode(...webp.subarray(offset, offset + 4)),
      webp.subarray(offset + 8, offset + 8 + size),
    ]);
    offset += 8 + size + (size & 1);
  }
  return chunks;
}

function riffChunk(fourcc: string, payload: Uint8Array): Uint8Array<ArrayBuffer> {
  const header = new Uint8Array(8);
  header.set(ascii(fourcc));
  new DataView(header.buffer).setUint32(4, payload.length, true);
  return concatBytes([header, payload, new Uint8Array(payload.length & 1)]);
}

function riff(chunks: Uint8Array[], declaredSize?: number): Uint8Array<ArrayBuffer> {
  const body = concatBytes([ascii("WEBP"), ...chunks]);
  const header = concatBytes([ascii("RIFF"), new Uint8Array(4)]);
  new DataView(header.buffer).setUint32(4, declaredSize ?? body.length, true);
  return concatBytes([header, body]);
}

/** The WebP with its RIFF size field set to `size` (too big or too small). */
export function webpLyingRiffSize(webp: Uint8Array, size: number) {
  const out = webp.slice();
  new DataView(out.buffer).setUint32(4, size, true);
  return out;
}

/** The WebP's image chunk wrapped in a VP8X header whose canvas claims `width`x`height`. */
export function webpLyingCanvas(webp: Uint8Array, width: number, height: number) {
  const image = webpChunks(webp).find(([fourcc]) => fourcc === "VP8 " || fourcc === "VP8L");
  if (!image) throw new Error("no image chunk");
  const vp8x = new Uint8Array(10);
  const put24 = (offset: number, value: number) =>
    vp8x.set([value & 255, (value >> 8) & 255, (value >> 16) & 255], offset);
  put24(4, width - 1);
  put24(7, height - 1);
  return riff([riffChunk("VP8X", vp8x), riffChunk(image[0], image[1])]);
}

/** A simple lossy WebP whose VP8 frame header claims `width`x`height` (14 bits each). */
export function webpLyingFrame(webp: Uint8Array, width: number, height: number) {
  const image = webpChunks(webp).find(([fourcc]) => fourcc === "VP8 ");
  if (!image) throw new Error("no VP8 chunk");
  const payload = image[1].slice();
  const view = new DataView(payload.buffer);
  view.setUint16(6, width & 0x3fff, true);
  view.setUint16(8, height & 0x3fff, true);
  return riff([riffChunk("VP8 ", payload)]);
}

/** A tiny but real zip archive (one stored file), to be sent as image/png. */
export function zipArchive(): Uint8Array<ArrayBuffer> {
  const content = ascii("not an image");
  const local = new Uint8Array(30);
  const view = new DataView(local.buffer);
  view.setUint32(0, 0x04034b50, true); // PK\3\4
  view.setUint16(4, 20, true);
  view.setUint32(14, crc32(content), true);
  view.setUint32(18, content.length, true);
  view.setUint32(22, content.length, true);
  view.setUint16(26, 5, true);
  const end = new Uint8Array(22);
  new DataView(end.buffer).setUint32(0, 0x06054b50, true); // PK\5\6
  return concatBytes([local, ascii("a.png"), content, end]);
}

/** The whole batch, from one real JPEG and one real lossy WebP (without alpha). */
export function badImages(real: { jpeg: Uint8Array; webp: Uint8Array }): BadImage[] {
  const png = (name: string, bytes: Uint8Array<ArrayBuffer>, expect: BadImageExpectation) => ({
    name,
    bytes,
    contentType: "image/png",
    filename: "upload.png",
    expect,
  });
  const jpeg = (name: string, bytes: Uint8Array<ArrayBuffer>, expect: BadImageExpectation) => ({
    ...png(name, bytes, expect),
    contentType: "image/jpeg",
    filename: "upload.jpg",
  });
  const webp = (name: string, bytes: Uint8Array<ArrayBuffer>, expect: BadImageExpectation) => ({
    ...png(name, bytes, expect),
    contentType: "image/webp",
    filename: "upload.webp",
  });
  return [
    png("PNG declaring 50000x50000", pngDeclaring(50_000, 50_000, 64), "pixel_limit"),
    png("PNG declaring 4294967295x1", pngDeclaring(0xffffffff, 1, 0), "pixel_limit"),
    png("PNG declaring 32768x1 (one side too long)", pngDeclaring(32_768, 1), "pixel_limit"),
    png(
      "PNG declaring 7000x7000 (under the limit) with one row of data",
      pngDeclaring(7000, 7000),
      "safe",
    ),
    png("PNG declaring 0x0", pngDeclaring(0, 0, 0), "safe"),
    png("PNG with a 64 MB zTXt bomb", validPng(16, 16, [ztxtBomb(64)]), "safe"),
    png("PNG with a 64 MB iCCP bomb", validPng(16, 16, [iccpBomb(64)]), "safe"),
    png("PNG whose IDAT length claims 2 GiB", pngLyingChunkLength(), "safe"),
    png("PNG cut right after IHDR", validPng(64, 64).slice(0, 33), "safe"),
    png("PNG cut in half", truncated(validPng(256, 256), 0.5), "safe"),
    png("PNG signature only", validPng(1, 1).slice(0, 8), "safe"),
    jpeg("JPEG cut in half", truncated(real.jpeg, 0.5), "safe"),
    jpeg("JPEG cut after 20 bytes", truncated(real.jpeg, 20 / real.jpeg.length), "safe"),
    jpeg("JPEG SOF declaring 65535x65535", jpegDeclaring(real.jpeg, 65_535, 65_535), "pixel_limit"),
    jpeg(
      "JPEG SOF declaring 7000x7000 over small data",
      jpegDeclaring(real.jpeg, 7000, 7000),
      "safe",
    ),
    jpeg("JPEG SOF declaring 0x0", jpegDeclaring(real.jpeg, 0, 0), "safe"),
    webp("WebP RIFF size claiming 4 GiB", webpLyingRiffSize(real.webp, 0xfffffff0), "safe"),
    webp("WebP RIFF size claiming 10 bytes", webpLyingRiffSize(real.webp, 10), "safe"),
    webp(
      "WebP VP8X canvas claiming 16384x16384",
      webpLyingCanvas(real.webp, 16_384, 16_384),
      "pixel_limit",
    ),
    webp(
      "WebP VP8X canvas claiming 16777216x1",
      webpLyingCanvas(real.webp, 2 ** 24, 1),
      "pixel_limit",
    ),
    webp("WebP VP8X canvas smaller than its frame", webpLyingCanvas(real.webp, 2, 2), "safe"),
    webp(
      "WebP VP8X canvas claiming 7000x7000 over a small frame",
      webpLyingCanvas(real.webp, 7000, 7000),
      "safe",
    ),
    webp(
      "WebP VP8 frame claiming 16383x16383",
      webpLyingFrame(real.webp, 16_383, 16_383),
      "pixel_limit",
    ),
    webp("WebP cut in half", truncated(real.webp, 0.5), "safe"),
    png("zip archive sent as image/png", zipArchive(), "not_an_image"),
    png(
      "GIF sent as image/png",
      concatBytes([ascii("GIF89a"), new Uint8Array(32)]),
      "not_an_image",
    ),
    png(
      "SVG sent as image/png",
      ascii('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      "not_an_image",
    ),
    png(
      "HTML sent as image/png",
      ascii("<!doctype html><script>alert(1)</script>"),
      "not_an_image",
    ),
  ];
}
