/**
 * Uploads carrying what a privacy promise is about (EXIF with a GPS position, XMP, comments) and
 * a check that an export carries none of it: only image data and, at most, an ICC profile.
 */
import { pngChunk } from "../../lib/codecs/png_encoder.ts";
import type { ImageKind } from "../../lib/codecs/presets.ts";
import { pngChunks } from "../../testing/png.ts";
import { jpegSegments, webpChunkTypes } from "./inspect.ts";
import { concatBytes as concat } from "../../lib/bytes.ts";

/** Text that appears in every piece of metadata added below, and must not reach an output. */
export const SECRET = "shotline-secret-47.3769N";

// Big-endian TIFF: IFD0 with one entry, GPSInfo (0x8825) -> a GPS IFD with GPSLatitudeRef "N".
const EXIF_WITH_GPS = Uint8Array.from([
  ...[0x4d, 0x4d, 0, 42, 0, 0, 0, 8],
  ...[0, 1, 0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0],
  ...[0, 1, 0, 1, 0, 2, 0, 0, 0, 2, 0x4e, 0, 0, 0, 0, 0, 0, 0],
  ...ascii(SECRET),
]);
const XMP = ascii(
  `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-` +
    `syntax-ns#"><rdf:Description exif:GPSLatitude="${SECRET}"/></rdf:RDF></x:xmpmeta>`,
);
const XMP_JPEG_TAG = "http://ns.adobe.com/xap/1.0/\0";

/** The file with EXIF (GPS), XMP and a comment added where its format keeps them. */
export function withPrivateMetadata(kind: ImageKind, file: Uint8Array): Uint8Array {
  if (kind === "jpeg") {
    const segment = (marker: number, data: Uint8Array) =>
      concat([Uint8Array.of(0xff, marker, (data.length + 2) >> 8, (data.length + 2) & 255), data]);
    return concat([
      file.subarray(0, 2),
      segment(0xe1, concat([ascii("Exif\0\0"), EXIF_WITH_GPS])),
      segment(0xe1, concat([ascii(XMP_JPEG_TAG), XMP])),
      segment(0xfe, ascii(`comment ${SECRET}`)),
      file.subarray(2),
    ]);
  }
  if (kind === "png") {
    return concat([
      file.subarray(0, 33),
      pngChunk("eXIf", EXIF_WITH_GPS),
      pngChunk("tEXt", ascii(`Comment\0${SECRET}`)),
      pngChunk("iTXt", concat([ascii("XML:com.adobe.xmp\0\0\0\0\0"), XMP])),
      file.subarray(33),
    ]);
  }
  // An extended WebP around the file's one image chunk: VP8X (EXIF and XMP flags), image, EXIF, XMP.
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (String.fromCharCode(...file.subarray(12, 16)) !== "VP8 ") throw new Error("lossy WebP only");
  const vp8x = new Uint8Array(10);
  vp8x[0] = 0x08 | 0x04;
  vp8x.set(uint24le((view.getUint16(26, true) & 0x3fff) - 1), 4);
  vp8x.set(uint24le((view.getUint16(28, true) & 0x3fff) - 1), 7);
  const body = concat([
    ascii("WEBP"),
    riffChunk("VP8X", vp8x),
    file.subarray(12),
    riffChunk("EXIF", EXIF_WITH_GPS),
    riffChunk("XMP ", XMP),
  ]);
  return concat([ascii("RIFF"), uint32le(body.length), body]);
}

/** Everything in an output that is neither image data nor an ICC profile (empty: clean). */
export function metadataLeft(format: string, bytes: Uint8Array): string[] {
  const found: string[] = [];
  if (new TextDecoder("latin1").decode(bytes).includes(SECRET)) found.push("secret text");
  if (format === "png") {
    const allowed = ["IHDR", "PLTE", "tRNS", "IDAT", "IEND", "iCCP"];
    found.push(...pngChunks(bytes).map((c) => c.type).filter((t) => !allowed.includes(t)));
  } else if (format === "jpeg") {
    for (const { marker, data } of jpegSegments(bytes)) {
      const app = marker >= 0xe0 && marker <= 0xef;
      const kept = marker === 0xe0 || marker === 0xee || // JFIF header, Adobe colour transform
        (marker === 0xe2 && String.fromCharCode(...data.subarray(0, 12)) === "ICC_PROFILE\0");
      if ((app && !kept) || marker === 0xfe) found.push(`marker ${marker.toString(16)}`);
    }
  } else {
    const allowed = ["VP8X", "ICCP", "ALPH", "VP8 ", "VP8L"];
    found.push(...webpChunkTypes(bytes).filter((t) => !allowed.includes(t)));
  }
  return found;
}

function riffChunk(type: string, data: Uint8Array): Uint8Array {
  return concat([ascii(type), uint32le(data.length), data, new Uint8Array(data.length & 1)]);
}

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function uint24le(n: number): Uint8Array {
  return Uint8Array.of(n & 255, (n >> 8) & 255, (n >> 16) & 255);
}

function uint32le(n: number): Uint8Array {
  return Uint8Array.of(n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >>> 24) & 255);
}
