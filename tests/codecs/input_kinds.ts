/**
 * Uploads of every kind the exporters accept, generated here (never downloaded): grey, 16-bit
 * and palette PNGs, a Display P3 PNG (profile built below), CMYK and YCCK JPEGs (and one made by
 * libvips, when sharp loads), alpha PNG/WebP, and files carrying EXIF with GPS, XMP and comments.
 */
import { deflateSync } from "node:zlib";
import { encodePng, pngChunk } from "../../lib/codecs/png_encoder.ts";
import type { Pixels } from "../../lib/codecs/pixels.ts";
import type { ImageKind } from "../../lib/codecs/presets.ts";
import type { Sharp } from "../../lib/codecs/sharp.ts";
import { orientPixels } from "../../lib/codecs/pixels.ts";
import {
  alphaPixels,
  encodeFixture,
  screenshotPixels,
  withOrientation,
} from "../../testing/codecs.ts";
import { cmykJpegOf } from "./cmyk_jpeg_writer.ts";
import { withPrivateMetadata } from "./private_metadata.ts";
import { concatBytes as concat } from "../../lib/bytes.ts";

export interface InputKind {
  name: string;
  bytes: Uint8Array;
  /**
   * What the upload shows as 8-bit RGBA (lossy inputs: their source); absent for CMYK, whose
   * source went through libvips' CMYK profile on the way in.
   */
  pixels?: Pixels;
  /** The kept profile, when the upload has an RGB one. */
  icc?: Uint8Array;
}

/** Every input kind at a small size; CMYK only when `sharp` is given (libvips writes it). */
export async function inputKinds(sharp?: Sharp): Promise<InputKind[]> {
  const page = screenshotPixels(240, 160);
  const alpha = alphaPixels(160, 120);
  const few = paletteFriendly(page);
  const p3 = displayP3Profile();
  const jpeg = await encodeFixture(page, "jpeg");
  const turned = orientPixels({ ...page, data: page.data.slice() }, 6);
  const kinds: InputKind[] = [
    { name: "png rgb", bytes: await encodeFixture(page, "png"), pixels: page },
    { name: "png rgba", bytes: await encodeFixture(alpha, "png", true), pixels: alpha },
    { name: "png grey", bytes: rawPng(page, { colourType: 0, depth: 8 }), pixels: grey(page) },
    {
      name: "png grey+alpha",
      bytes: rawPng(alpha, { colourType: 4, depth: 8 }),
      pixels: grey(alpha),
    },
    { name: "png 16-bit", bytes: rawPng(page, { colourType: 2, depth: 16 }), pixels: page },
    { name: "png palette", bytes: palettePng(few), pixels: few },
    {
      name: "png display-p3",
      bytes: withIccPng(await encodeFixture(page, "png"), p3),
      pixels: page,
      icc: p3,
    },
    { name: "jpeg", bytes: jpeg, pixels: page },
    { name: "jpeg exif orientation 6", bytes: withOrientation("jpeg", jpeg, 6), pixels: turned },
    { name: "webp", bytes: await encodeFixture(page, "webp"), pixels: page },
    { name: "webp alpha", bytes: await encodeFixture(alpha, "webp", true), pixels: alpha },
  ];
  // The same images carrying EXIF with a GPS position, XMP and comments, which must not survive.
  for (const kind of kinds.filter((k) => ["png rgb", "jpeg", "webp"].includes(k.name))) {
    const bytes = withPrivateMetadata(kind.name.split(" ")[0] as ImageKind, kind.bytes);
    kinds.push({ ...kind, name: `${kind.name} + EXIF GPS, XMP, comment`, bytes });
  }
  const ink = { width: 240, height: 160, data: inkOf(page) };
  kinds.push({ name: "jpeg cmyk (Adobe)", bytes: cmykJpegOf(ink, "cmyk") });
  kinds.push({ name: "jpeg ycck", bytes: cmykJpegOf(ink, "ycck") });
  if (sharp) kinds.push({ name: "jpeg cmyk (libvips)", bytes: await cmykJpeg(sharp, page) });
  return kinds;
}

/** The image as a CMYK JPEG with no profile (libvips writes an Adobe marker, as Photoshop does). */
export async function cmykJpeg(sharp: Sharp, pixels: Pixels): Promise<Uint8Array> {
  const raw = { width: pixels.width, height: pixels.height, channels: 4 as const };
  const jpeg = await sharp(pixels.data, { raw }).removeAlpha().toColourspace("cmyk")
    .jpeg({ quality: 95 }).toBuffer();
  return new Uint8Array(jpeg);
}

/** A PNG with an iCCP chunk right after IHDR. */
export function withIccPng(png: Uint8Array, icc: Uint8Array): Uint8Array {
  const data = concat([ascii("Display P3\0\0"), deflateSync(icc)]);
  return concat([png.subarray(0, 33), pngChunk("iCCP", data), png.subarray(33)]);
}

/** Plain ink amounts for RGB (K = the darkest share), so the CMYK files show a page too. */
function inkOf(pixels: Pixels): Uint8Array {
  const ink = new Uint8Array(pixels.data.length);
  for (let i = 0; i < ink.length; i += 4) {
    const [r, g, b] = pixels.data.subarray(i, i + 3);
    const k = 255 - Math.max(r, g, b);
    const scale = k === 255 ? 0 : 255 / (255 - k);
    ink.set([(255 - r - k) * scale, (255 - g - k) * scale, (255 - b - k) * scale, k], i);
  }
  return ink;
}

/** Grey (colour type 0), RGB (2) or grey+alpha (4) PNG at 8 or 16 bits, unfiltered. */
export function rawPng(
  pixels: Pixels,
  { colourType, depth }: { colourType: 0 | 2 | 4; depth: 8 | 16 },
) {
  const { width, height, data } = pixels;
  const samples = { 0: 1, 2: 3, 4: 2 }[colourType] * (depth / 8);
  const rows = new Uint8Array((width * samples + 1) * height);
  for (let y = 0, o = 0; y < height; y++) {
    rows[o++] = 0;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const values = colourType === 0
        ? [luma(data, i)]
        : colourType === 4
        ? [luma(data, i), data[i + 3]]
        : [data[i], data[i + 1], data[i + 2]];
      for (const v of values) {
        rows[o++] = v;
        if (depth === 16) rows[o++] = v; // v * 257: the same colour at 16 bits
      }
    }
  }
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, width);
  new DataView(ihdr.buffer).setUint32(4, height);
  ihdr.set([depth, colourType, 0, 0, 0], 8);
  return concat([
    Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(rows)),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

function grey(pixels: Pixels): Pixels {
  const data = pixels.data.slice();
  for (let i = 0; i < data.length; i += 4) data.fill(luma(pixels.data, i), i, i + 3);
  return { ...pixels, data };
}

function luma(data: Uint8Array, i: number): number {
  return Math.round(0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2]);
}

/** Colours snapped to a 6x6x6 cube, so the image fits a palette exactly. */
function paletteFriendly(pixels: Pixels): Pixels {
  const data = pixels.data.map((v, i) => (i % 4 === 3 ? v : Math.round(v / 51) * 51));
  return { ...pixels, data };
}

function palettePng(pixels: Pixels): Uint8Array {
  const index = new Map<number, number>();
  const indices = new Uint8Array(pixels.width * pixels.height);
  const view = new DataView(pixels.data.buffer, pixels.data.byteOffset);
  for (let p = 0; p < indices.length; p++) {
    const colour = view.getUint32(p * 4);
    if (!index.has(colour)) index.set(colour, index.size);
    indices[p] = index.get(colour)!;
  }
  const palette = new Uint8Array(index.size * 4);
  for (const [colour, i] of index) new DataView(palette.buffer).setUint32(i * 4, colour);
  return encodePng({ ...pixels, data: indices, channels: 1, palette }, 6);
}

/**
 * A Display P3 monitor profile (ICC v2, matrix and curves): P3 primaries adapted to D50, the
 * sRGB tone curve, as in the profile Macs attach to screenshots.
 */
export function displayP3Profile(): Uint8Array {
  const curve = new Uint8Array(12 + 1024 * 2);
  curve.set(ascii("curv"));
  const curveView = new DataView(curve.buffer);
  curveView.setUint32(8, 1024);
  for (let i = 0; i < 1024; i++) {
    const v = i / 1023;
    const linear = v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    curveView.setUint16(12 + i * 2, Math.round(linear * 65535));
  }
  return profileOf("RGB ", [
    ["desc", desc("Display P3 (test)")],
    ["cprt", text("No copyright, test profile")],
    ["wtpt", xyz(0.9642, 1, 0.8249)],
    ["rXYZ", xyz(0.515121, 0.241196, -0.001053)],
    ["gXYZ", xyz(0.291977, 0.692245, 0.041885)],
    ["bXYZ", xyz(0.157104, 0.066574, 0.784073)],
    ["rTRC", curve],
    ["gTRC", curve],
    ["bTRC", curve],
  ]);
}

/** A grey monitor profile (ICC v2) whose tone curve is a plain gamma (1.0: linear light). */
export function greyProfile(gamma: number): Uint8Array {
  const curve = concat([ascii("curv\0\0\0\0"), uint32(1), Uint8Array.of(gamma | 0, 0, 0, 0)]);
  curve[13] = Math.round((gamma % 1) * 256); // u8Fixed8: integer part, then 256ths
  return profileOf("GRAY", [
    ["desc", desc(`Grey gamma ${gamma} (test)`)],
    ["cprt", text("No copyright, test profile")],
    ["wtpt", xyz(0.9642, 1, 0.8249)],
    ["kTRC", curve.subarray(0, 14)],
  ]);
}

function xyz(x: number, y: number, z: number): Uint8Array {
  return concat([ascii("XYZ \0\0\0\0"), ...[x, y, z].map(s15Fixed16)]);
}

function text(t: string): Uint8Array {
  return concat([ascii("text\0\0\0\0"), ascii(`${t}\0`)]);
}

function desc(t: string): Uint8Array {
  return concat([ascii("desc\0\0\0\0"), uint32(t.length + 1), ascii(`${t}\0`), new Uint8Array(79)]);
}

/** A monitor-class profile of `space` (4 characters) with the XYZ connection space. */
function profileOf(space: string, tags: [string, Uint8Array][]): Uint8Array {
  let offset = 128 + 4 + tags.length * 12;
  const table: Uint8Array[] = [uint32(tags.length)];
  const bodies: Uint8Array[] = [];
  for (const [signature, body] of tags) {
    const padded = concat([body, new Uint8Array((4 - (body.length % 4)) % 4)]);
    table.push(concat([ascii(signature), uint32(offset), uint32(body.length)]));
    bodies.push(padded);
    offset += padded.length;
  }
  const header = new Uint8Array(128);
  const view = new DataView(header.buffer);
  view.setUint32(0, offset);
  view.setUint32(8, 0x02100000); // version 2.1
  header.set(ascii(`mntr${space}XYZ `), 12);
  header.set([0x07, 0xea, 0, 1, 0, 1], 24); // 2026-01-01
  header.set(ascii("acsp"), 36);
  header.set(concat([0.9642, 1, 0.8249].map(s15Fixed16)), 68); // D50, the connection space
  return concat([header, ...table, ...bodies]);
}

function s15Fixed16(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, Math.round(v * 65536));
  return out;
}

function uint32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}
