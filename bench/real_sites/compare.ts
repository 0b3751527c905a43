/**
 * How a capture is scored against what a person saw (the screens of `person.ts`): each screen is
 * compared with the band of the capture that starts at the screen's scroll offset (clamped at the
 * capture's bottom), over the pixels its mask leaves. A screen's score is the share of those
 * pixels within TOLERANCE on every channel; a missing block is a 64x64 tile, mostly counted and
 * not flat in the reference, that is mostly wrong or blank in the capture. A capture passes at
 * PASS_SCORE on every screen with no missing block.
 */
import sharp from "sharp";

export const VIEWPORT = { width: 1920, height: 1080 };
/** Largest difference on any channel (0-255) that still counts as the same pixel. */
export const TOLERANCE = 24;
export const PASS_SCORE = 0.98;
const TILE = 64;
const MISSING_TILE_SHARE = 0.6;
// A tile counts for a missing block when at least half its pixels count and its reference
// brightness spans more than this (a flat tile cannot show that content is missing).
const FLAT_RANGE = 32;
// A capture tile whose brightness spans at most this is blank; with at least this share of the
// tile wrong (a line of text), content is missing there.
const BLANK_RANGE = 8;
const BLANK_WRONG_SHARE = 0.01;

export interface Image {
  width: number;
  height: number;
  /** RGBA, row by row. */
  data: Uint8Array;
}

export interface Screen {
  /** The scroll offset of the page's scroller at this screen, CSS px = image px at 1x. */
  offset: number;
  shot: Image;
  /** 1 where a pixel does not count. */
  mask: Uint8Array;
}

export interface Reference {
  /** "document" or the selector-like name of the scroll container the person scrolled. */
  scroller: string;
  /** Scroll height of the scroller. */
  scrollHeight: number;
  screens: Screen[];
  /** Screens the wheel did not reach (the page swallowed it) and that were scrolled to directly. */
  wheelMissed: number;
}

/** Decodes a PNG (or any image sharp reads) to RGBA. */
export async function decode(png: Uint8Array): Promise<Image> {
  const { data, info } = await sharp(png, { limitInputPixels: false }).ensureAlpha().raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data) };
}

export interface ScreenScore {
  offset: number;
  /** Where the compared band starts in the capture. */
  bandTop: number;
  score: number;
  /** Share of the screen's pixels that count. */
  counted: number;
  missingBlocks: number;
  /** 1 where a counted pixel differs. */
  wrong: Uint8Array;
}

/** Scores every screen of `reference` against its band of `capture`. */
export function scoreCapture(reference: Reference, capture: Image): ScreenScore[] {
  const { width: w, height: h } = VIEWPORT;
  return reference.screens.map((screen) => {
    const bandTop = Math.max(0, Math.min(screen.offset, capture.height - h));
    const wrong = new Uint8Array(w * h);
    let counted = 0, bad = 0;
    for (let y = 0; y < h; y++) {
      const cy = bandTop + y;
      for (let x = 0; x < w; x++) {
        const p = y * w + x;
        if (screen.mask[p]) continue;
        counted++;
        if (cy >= capture.height || x >= capture.width) {
          wrong[p] = 1; // the capture has no pixel here at all
          bad++;
          continue;
        }
        const i = p * 4, j = (cy * capture.width + x) * 4;
        const s = screen.shot.data, c = capture.data;
        if (
          Math.abs(s[i] - c[j]) > TOLERANCE || Math.abs(s[i + 1] - c[j + 1]) > TOLERANCE ||
          Math.abs(s[i + 2] - c[j + 2]) > TOLERANCE
        ) {
          wrong[p] = 1;
          bad++;
        }
      }
    }
    return {
      offset: screen.offset,
      bandTop,
      score: counted ? 1 - bad / counted : 1,
      counted: counted / (w * h),
      missingBlocks: missingBlocks(screen, wrong, capture, bandTop),
      wrong,
    };
  });
}

const luma = (d: Uint8Array, i: number) => (d[i] * 299 + d[i + 1] * 587 + d[i + 2] * 114) / 1000;

// A tile is missing when it mostly counts, its reference is not flat, and either most of it is
// wrong (a photo or a block of colour gone) or the capture is blank there while some of it is
// wrong (text or a table on white gone: few pixels, but nothing in their place).
function missingBlocks(screen: Screen, wrong: Uint8Array, capture: Image, bandTop: number) {
  const { width: w, height: h } = VIEWPORT;
  let blocks = 0;
  for (let ty = 0; ty + TILE <= h; ty += TILE) {
    for (let tx = 0; tx + TILE <= w; tx += TILE) {
      let counted = 0, bad = 0, lo = 255, hi = 0, capLo = 255, capHi = 0;
      for (let y = ty; y < ty + TILE; y++) {
        for (let x = tx; x < tx + TILE; x++) {
          const p = y * w + x;
          if (screen.mask[p]) continue;
          counted++;
          bad += wrong[p];
          const ref = luma(screen.shot.data, p * 4);
          lo = Math.min(lo, ref);
          hi = Math.max(hi, ref);
          const cy = bandTop + y;
          if (cy < capture.height && x < capture.width) {
            const cap = luma(capture.data, (cy * capture.width + x) * 4);
            capLo = Math.min(capLo, cap);
            capHi = Math.max(capHi, cap);
          }
        }
      }
      if (counted < TILE * TILE / 2 || hi - lo <= FLAT_RANGE) continue;
      const blank = capHi - capLo <= BLANK_RANGE && bad >= BLANK_WRONG_SHARE * counted;
      if (bad > MISSING_TILE_SHARE * counted || blank) blocks++;
    }
  }
  return blocks;
}

/**
 * Writes the screen, its band of the capture and the difference side by side at half size:
 * wrong pixels red, uncounted ones dimmed grey.
 */
export async function writeSideBySide(
  path: string,
  screen: Screen,
  score: ScreenScore,
  capture: Image,
) {
  const { width: w, height: h } = VIEWPORT;
  const out = new Uint8Array(w * 3 * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x, i = p * 4;
      const o = (y * w * 3 + x) * 4;
      out.set(screen.shot.data.subarray(i, i + 4), o);
      const cy = score.bandTop + y;
      if (cy < capture.height && x < capture.width) {
        const j = (cy * capture.width + x) * 4;
        out.set(capture.data.subarray(j, j + 4), o + w * 4);
      }
      const d = o + w * 8;
      const grey = (screen.shot.data[i] + screen.shot.data[i + 1] + screen.shot.data[i + 2]) / 3;
      if (screen.mask[p]) out.set([120, 120, 120, 255], d);
      else if (score.wrong[p]) out.set([255, 0, 0, 255], d);
      else out.set([grey, grey, grey, 255].map((v) => 200 + v / 5), d);
    }
  }
  await sharp(out, { raw: { width: w * 3, height: h, channels: 4 } })
    .resize(w * 3 / 2, h / 2).png().toFile(path);
}

/** A capture stitched from the reference's own shots (`shift` px down): the judge's self-check. */
export function stitch(reference: Reference, shift = 0): Image {
  const { width: w, height: h } = VIEWPORT;
  const last = reference.screens[reference.screens.length - 1];
  const height = last.offset + h;
  const data = new Uint8Array(w * height * 4).fill(255);
  // Last screen first, so each earlier screen is whole where they overlap.
  for (const screen of [...reference.screens].reverse()) {
    for (let y = 0; y < h; y++) {
      const ty = screen.offset + y + shift;
      if (ty < 0 || ty >= height) continue;
      data.set(screen.shot.data.subarray(y * w * 4, (y + 1) * w * 4), ty * w * 4);
    }
  }
  return { width: w, height, data };
}
