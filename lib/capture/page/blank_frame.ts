/**
 * The blank-frame guard's test: is a PNG one flat colour? Only a small file can be (Chromium's
 * fast PNG of a flat 1920x1080 frame is 34 KB, a real page's several hundred), so most shots
 * are judged by their length alone; small ones are inflated and compared pixel by pixel, which
 * stops at the first pixel that differs (2 to 3 ms for a sparse page of a heading and a line).
 */
import type { Page } from "puppeteer-core";
import { HAS_CONTENT_SCRIPT } from "./settle_scripts.ts";
import { pngHeader, pngRows, unfilterRow } from "../../codecs/png_rows.ts";

// Bytes per row above which a PNG cannot be flat: Chromium's fast PNG of a flat frame takes
// about 4 bytes plus 0.005 per byte of the row (32 a row at 1920 px RGB, 10 at 375, 59 at
// 3840), so a shot with anything on it is mostly ruled out by its length alone.
const FLAT_ROW_BYTES = 12;
const FLAT_BYTES_PER_ROW_BYTE = 0.006;

/** Whether the shot is one flat colour while the page has text or pictures to show. */
export async function isBlankFrame(page: Page, png: Uint8Array): Promise<boolean> {
  if (!await isFlatPng(png)) return false;
  return await page.evaluate(`(${HAS_CONTENT_SCRIPT})()`).catch(() => false) === true;
}

/**
 * Whether an 8-bit RGB or RGBA PNG has every pixel the same; false for anything else. Rows are
 * inflated as a stream and the first pixel that differs ends the work.
 */
export async function isFlatPng(png: Uint8Array): Promise<boolean> {
  // A jpeg or webp shot (format) is not judged: only a PNG's rows can be read this cheaply.
  const { width, height, channels } = pngHeader(png);
  if (channels === 0) return false;
  if (png.length > height * (FLAT_ROW_BYTES + width * channels * FLAT_BYTES_PER_ROW_BYTE)) {
    return false;
  }
  // "Up" by nothing (Chromium's usual row of a flat frame) is the row above, as it is.
  const unfilter: typeof unfilterRow = (line, rows) => {
    if (line[0] === 2 && line.every((byte, i) => i === 0 || byte === 0)) {
      rows.row.set(rows.previous);
    } else unfilterRow(line, rows);
  };
  let first: Uint8Array | null = null;
  try {
    for await (const { y, row, previous } of pngRows(png, unfilter)) {
      // A row like the one above is flat too (the usual case: one comparison per 4 bytes).
      if (y > 0 && sameBytes(row, previous)) continue;
      first ??= row.slice(0, channels);
      for (let i = 0; i < row.length; i++) if (row[i] !== first[i % channels]) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length % 4 === 0) {
    const x = new Uint32Array(a.buffer, a.byteOffset, a.length / 4);
    const y = new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
