/**
 * A favicon's bytes as a data: URL a canvas can draw without being tainted: the type is read from
 * the bytes (a 200 HTML page answering /favicon.ico is not an icon), and an .ico is cut to the
 * one image a browser bar needs, so the answer and the cache entry stay small.
 */
import { Buffer } from "node:buffer";
import { ascii, sniffKind, viewOf } from "../../codecs/image_info.ts";

/** The largest icon carried (after an .ico is cut to one image): a title bar needs 16 to 64 px. */
export const MAX_ICON_BYTES = 32 * 1024;
// The side a title bar draws at 1x to 2x: the .ico image closest above it is kept.
const WANTED_SIDE = 32;
const ICO_HEADER = 6;
const ICO_ENTRY = 16;

/** `bytes` as a data: URL of an image type browsers draw, or null when they are not an icon. */
export function iconDataUrl(bytes: Uint8Array): string | null {
  const kind = iconKind(bytes);
  if (!kind) return null;
  const icon = kind === "image/x-icon" ? singleIcon(bytes) : bytes;
  if (!icon || icon.length > MAX_ICON_BYTES) return null;
  return `data:${kind};base64,${Buffer.from(icon).toString("base64")}`;
}

/** The media type by the bytes themselves; the declared content type is never trusted. */
export function iconKind(bytes: Uint8Array): string | null {
  const raster = sniffKind(bytes);
  if (raster) return `image/${raster}`;
  if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") return "image/gif";
  if (ascii(bytes, 0, 2) === "BM" && bytes.length > 26) return "image/bmp";
  if (ascii(bytes, 4, 4) === "ftyp" && /^avi[fs]$/.test(ascii(bytes, 8, 4))) return "image/avif";
  if (isIco(bytes)) return "image/x-icon";
  if (isSvg(bytes)) return "image/svg+xml";
  return null;
}

function isIco(bytes: Uint8Array): boolean {
  const view = viewOf(bytes);
  return bytes.length >= ICO_HEADER + ICO_ENTRY && view.getUint16(0, true) === 0 &&
    view.getUint16(2, true) === 1 && view.getUint16(4, true) > 0;
}

// An SVG document: optional BOM, XML declaration, comments and doctype, then the <svg> element.
const SVG_START = /^\uFEFF?\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i;

function isSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder().decode(bytes.subarray(0, 4096));
  return SVG_START.test(head);
}

/**
 * An .ico of its one image nearest above 32 px (else its largest), with the most colour bits
 * among equal sides; null when the directory points outside the file. The image itself (PNG or
 * BMP) is copied as it is: no decoding.
 */
export function singleIcon(bytes: Uint8Array): Uint8Array | null {
  const view = viewOf(bytes);
  const count = view.getUint16(4, true);
  if (bytes.length < ICO_HEADER + count * ICO_ENTRY) return null;
  let best: { side: number; bits: number; entry: number; size: number; offset: number } | null =
    null;
  for (let i = 0; i < count; i++) {
    const entry = ICO_HEADER + i * ICO_ENTRY;
    const side = bytes[entry] || 256;
    const bits = view.getUint16(entry + 6, true);
    const size = view.getUint32(entry + 8, true);
    const offset = view.getUint32(entry + 12, true);
    if (size === 0 || offset + size > bytes.length) continue;
    if (!best || closer(side, best.side) || (side === best.side && bits > best.bits)) {
      best = { side, bits, entry, size, offset };
    }
  }
  if (!best) return null;
  if (count === 1) return bytes;
  const out = new Uint8Array(ICO_HEADER + ICO_ENTRY + best.size);
  const outView = viewOf(out);
  outView.setUint16(2, 1, true);
  outView.setUint16(4, 1, true);
  out.set(bytes.subarray(best.entry, best.entry + 12), ICO_HEADER);
  outView.setUint32(ICO_HEADER + 12, ICO_HEADER + ICO_ENTRY, true);
  out.set(bytes.subarray(best.offset, best.offset + best.size), ICO_HEADER + ICO_ENTRY);
  return out;
}

/** Whether `side` suits a title bar better than `than`: the smallest at or above 32, else the largest. */
function closer(side: number, than: number): boolean {
  const above = side >= WANTED_SIDE;
  const thanAbove = than >= WANTED_SIDE;
  if (above !== thanAbove) return above;
  return above ? side < than : side > than;
}
