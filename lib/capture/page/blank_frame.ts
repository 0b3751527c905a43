/**
 * The blank-frame guard's test: is a PNG one flat colour? Only a small file can be (a flat
 * 1920x1080 PNG from Chromium is a few kilobytes), so a shot with anything on it is judged by
 * its length alone and only small ones are inflated and compared pixel by pixel.
 */
import { inflateSync } from "node:zlib";
import type { Page } from "puppeteer-core";
import { HAS_CONTENT_SCRIPT } from "./settle_scripts.ts";

// Bytes per pixel above which a PNG cannot be flat (a flat one compresses about 1000:1).
const FLAT_MAX_BYTES_PER_PIXEL = 1 / 200;

/** Whether the shot is one flat colour while the page has text or pictures to show. */
export async function isBlankFrame(page: Page, png: Uint8Array): Promise<boolean> {
  if (!isFlatPng(png)) return false;
  return await page.evaluate(`(${HAS_CONTENT_SCRIPT})()`).catch(() => false) === true;
}

/** Whether an 8-bit RGB or RGBA PNG has every pixel the same; false for anything else. */
export function isFlatPng(png: Uint8Array): boolean {
  if (png.length < 33) return false;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  const depth = png[24];
  const channels = png[25] === 6 ? 4 : png[25] === 2 ? 3 : 0;
  if (depth !== 8 || channels === 0 || png[28] !== 0) return false;
  if (png.length > width * height * FLAT_MAX_BYTES_PER_PIXEL + 1024) return false;
  const parts: Uint8Array[] = [];
  for (let offset = 8; offset + 8 <= png.length;) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...png.subarray(offset + 4, offset + 8));
    if (type === "IDAT") parts.push(png.subarray(offset + 8, offset + 8 + length));
    offset += 12 + length;
  }
  let raw: Uint8Array;
  try {
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) joined.set(part, (at += part.length) - part.length);
    raw = inflateSync(joined);
  } catch {
    return false;
  }
  const stride = width * channels;
  if (raw.length < (stride + 1) * height) return false;
  let previous = new Uint8Array(stride);
  const row = new Uint8Array(stride);
  const first = new Uint8Array(channels);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? row[i - channels] : 0;
      const up = previous[i];
      const corner = i >= channels ? previous[i - channels] : 0;
      row[i] = (line[i] + predict(filter, left, up, corner)) & 0xff;
    }
    if (y === 0) first.set(row.subarray(0, channels));
    for (let i = 0; i < stride; i++) if (row[i] !== first[i % channels]) return false;
    previous = row.slice();
  }
  return true;
}

function predict(filter: number, left: number, up: number, corner: number): number {
  switch (filter) {
    case 1:
      return left;
    case 2:
      return up;
    case 3:
      return (left + up) >> 1;
    case 4: {
      const p = left + up - corner;
      const pa = Math.abs(p - left);
      const pb = Math.abs(p - up);
      const pc = Math.abs(p - corner);
      return pa <= pb && pa <= pc ? left : pb <= pc ? up : corner;
    }
    default:
      return 0;
  }
}
