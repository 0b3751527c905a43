/** Magic-byte sniffing and header parsing: what an upload is, before any decoder touches it. */
import { exifOrientation } from "./exif.ts";
import type { ImageKind } from "./presets.ts";

export interface ImageInfo {
  kind: ImageKind;
  /** Stored dimensions, before EXIF orientation is applied. */
  width: number;
  height: number;
  /** The header says the image can carry transparency (alpha channel, tRNS, WebP alpha). */
  hasAlpha: boolean;
  /** EXIF orientation 1..8; 1 when there is none. */
  orientation: number;
  /** An animated WebP (VP8X animation flag). */
  animated: boolean;
  /** A four-component (CMYK or YCCK) JPEG. */
  cmyk: boolean;
  /** Stored as grey levels (PNG grey or grey + alpha, one-component JPEG). */
  grey: boolean;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The image type by its magic bytes (the declared content type is never trusted). */
export function sniffKind(bytes: Uint8Array): ImageKind | undefined {
  if (PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return "png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return "webp";
  return undefined;
}

/** Dimensions, alpha and orientation from the header; undefined when it is truncated or broken. */
export function readImageInfo(kind: ImageKind, bytes: Uint8Array): ImageInfo | undefined {
  const info = kind === "png"
    ? pngInfo(bytes)
    : kind === "jpeg"
    ? jpegInfo(bytes)
    : webpInfo(bytes);
  if (!info || info.width < 1 || info.height < 1) return undefined;
  return info;
}

function pngInfo(bytes: Uint8Array): ImageInfo | undefined {
  const view = viewOf(bytes);
  if (bytes.length < 33 || ascii(bytes, 12, 4) !== "IHDR") return undefined;
  const colorType = bytes[25];
  const info: ImageInfo = {
    kind: "png",
    width: view.getUint32(16),
    height: view.getUint32(20),
    hasAlpha: colorType === 4 || colorType === 6,
    orientation: 1,
    animated: false,
    cmyk: false,
    grey: colorType === 0 || colorType === 4,
  };
  // Ancillary chunks that matter (tRNS, eXIf) come before the image data.
  for (let offset = 33; offset + 8 <= bytes.length;) {
    const length = view.getUint32(offset);
    const type = ascii(bytes, offset + 4, 4);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === "IDAT" || type === "IEND") break;
    if (type === "tRNS") info.hasAlpha = true;
    if (type === "eXIf") info.orientation = exifOrientation(data);
    offset += 12 + length;
  }
  return info;
}

function jpegInfo(bytes: Uint8Array): ImageInfo | undefined {
  const view = viewOf(bytes);
  let orientation = 1;
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1];
    if (marker === 0xff) { // fill byte before a marker
      offset += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { // markers without a length
      offset += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // image data before any frame
    const length = view.getUint16(offset + 2);
    const data = bytes.subarray(offset + 4, offset + 2 + length);
    if (marker === 0xe1 && orientation === 1) orientation = exifOrientation(data);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isFrame) {
      if (data.length < 6) return undefined;
      const height = (data[1] << 8) | data[2];
      const width = (data[3] << 8) | data[4];
      const cmyk = data[5] === 4; // component count
      const grey = data[5] === 1;
      return {
        kind: "jpeg",
        width,
        height,
        hasAlpha: false,
        orientation,
        animated: false,
        cmyk,
        grey,
      };
    }
    offset += 2 + length;
  }
  return undefined;
}

function webpInfo(bytes: Uint8Array): ImageInfo | undefined {
  const view = viewOf(bytes);
  if (bytes.length < 30) return undefined;
  const first = ascii(bytes, 12, 4);
  const data = bytes.subarray(20);
  const base = { kind: "webp" as const, orientation: 1, animated: false, cmyk: false, grey: false };
  if (first === "VP8 ") {
    if (data[3] !== 0x9d || data[4] !== 0x01 || data[5] !== 0x2a) return undefined;
    const width = view.getUint16(26, true) & 0x3fff;
    const height = view.getUint16(28, true) & 0x3fff;
    return { ...base, width, height, hasAlpha: false };
  }
  if (first === "VP8L") {
    if (data[0] !== 0x2f) return undefined;
    const bits = view.getUint32(21, true);
    const width = (bits & 0x3fff) + 1;
    const height = ((bits >>> 14) & 0x3fff) + 1;
    return { ...base, width, height, hasAlpha: ((bits >>> 28) & 1) === 1 };
  }
  if (first !== "VP8X") return undefined;
  const flags = data[0];
  const info: ImageInfo = {
    ...base,
    width: uint24(data, 4) + 1,
    height: uint24(data, 7) + 1,
    hasAlpha: (flags & 0x10) !== 0,
    animated: (flags & 0x02) !== 0,
  };
  if (flags & 0x08) { // the EXIF chunk follows the image data: walk the chunk list to it
    for (let offset = 12; offset + 8 <= bytes.length;) {
      const size = view.getUint32(offset + 4, true);
      if (ascii(bytes, offset, 4) === "EXIF") {
        info.orientation = exifOrientation(bytes.subarray(offset + 8, offset + 8 + size));
        break;
      }
      offset += 8 + size + (size & 1);
    }
  }
  return info;
}

/** A DataView over exactly `bytes`. */
export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** `length` bytes from `offset` as Latin-1 text (a magic number, a chunk type). */
export function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}

function uint24(bytes: Uint8Array, offset: number): number {
  return bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16);
}
