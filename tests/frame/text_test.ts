/**
 * The frame's text: Inter read from WOFF or sfnt, a line laid out from the subsets in fallback
 * order, and drawn into an anti-aliased coverage mask that is the same bytes every time.
 */
import assert from "node:assert/strict";
import { type Font, type FontStack, fontStack, loadFont } from "../../lib/frame/font.js";
import { FRAME_FONT_FILES, loadFrameFonts } from "../../lib/frame/fonts.ts";
import { layoutText, type Mask, rasterizeText } from "../../lib/frame/text.js";

const LATIN = FRAME_FONT_FILES[0].bytes;

/** Inflates zlib data with the platform's stream (independently of the reader's own helper). */
async function inflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([new Uint8Array(data)]).stream().pipeThrough(
    new DecompressionStream("deflate"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A raw TrueType sfnt holding `tables` (checksums left zero: the reader does not check them). */
function buildSfnt(tables: Map<string, Uint8Array>): Uint8Array {
  const tags = [...tables.keys()].sort();
  let size = 12 + 16 * tags.length;
  const offsets = tags.map((tag) => {
    const offset = size;
    size += (tables.get(tag)!.length + 3) & ~3;
    return offset;
  });
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x00010000);
  view.setUint16(4, tags.length);
  tags.forEach((tag, i) => {
    const record = 12 + 16 * i;
    for (let c = 0; c < 4; c++) view.setUint8(record + c, tag.charCodeAt(c));
    view.setUint32(record + 8, offsets[i]);
    view.setUint32(record + 12, tables.get(tag)!.length);
    out.set(tables.get(tag)!, offsets[i]);
  });
  return out;
}

/** The sfnt a WOFF 1.0 file wraps. */
async function woffToSfnt(woff: Uint8Array): Promise<Uint8Array> {
  const view = new DataView(woff.buffer, woff.byteOffset, woff.byteLength);
  assert.equal(view.getUint32(0), 0x774f4646);
  const tables = new Map<string, Uint8Array>();
  for (let i = 0; i < view.getUint16(12); i++) {
    const entry = 44 + 20 * i;
    const tag = String.fromCharCode(...woff.subarray(entry, entry + 4));
    const offset = view.getUint32(entry + 4);
    const stored = woff.subarray(offset, offset + view.getUint32(entry + 8));
    const length = view.getUint32(entry + 12);
    tables.set(tag, stored.length < length ? await inflate(stored) : stored);
  }
  return buildSfnt(tables);
}

/** Big-endian bytes written one field after another. */
class Writer {
  bytes: number[] = [];
  u8(...values: number[]) {
    for (const v of values) this.bytes.push(v & 0xff);
    return this;
  }
  i8(...values: number[]) {
    return this.u8(...values);
  }
  u16(...values: number[]) {
    for (const v of values) this.bytes.push((v >> 8) & 0xff, v & 0xff);
    return this;
  }
  i16(...values: number[]) {
    return this.u16(...values.map((v) => v & 0xffff));
  }
  u32(...values: number[]) {
    for (const v of values) this.u16((v >>> 16) & 0xffff, v & 0xffff);
    return this;
  }
  done() {
    return new Uint8Array(this.bytes);
  }
}

/**
 * A hand-made font of 1000 units per em: glyph 1 a 100-unit square ("A" and "."), 2 to 5
 * composites of it (scaled, shifted and turned, anchored by points, stretched: "B" to "E") and 6
 * a contour of control points only (U+1F600, through a format 12 cmap).
 */
function syntheticFont(): Uint8Array {
  const glyphs: Uint8Array[] = [
    new Uint8Array(0),
    // The square, clockwise in y-up, one flag repeated: (0,0) (0,100) (100,100) (100,0).
    new Writer().i16(1, 0, 0, 100, 100).u16(3, 0).u8(0x09, 3).i16(0, 0, 100, 0)
      .i16(0, 100, 0, -100).done(),
    // The square at half size, moved by (10, 20).
    new Writer().i16(-1, 0, 0, 0, 0).u16(0x0001 | 0x0002 | 0x0008, 1).i16(10, 20, 8192).done(),
    // The square moved by (-5, 0), then turned a quarter (x' = -y, y' = x) and moved by (200, 0).
    new Writer().i16(-1, 0, 0, 0, 0).u16(0x0002 | 0x0020, 1).i8(-5, 0)
      .u16(0x0001 | 0x0002 | 0x0080, 1).i16(200, 0, 0, 16384, -16384, 0).done(),
    // The square, then glyph 2 placed so its point 0 lands on the square's point 2.
    new Writer().i16(-1, 0, 0, 0, 0).u16(0x0002 | 0x0020, 1).i8(0, 0).u16(0, 2).u8(2, 0).done(),
    // The square stretched 1.5 across and 0.25 up.
    new Writer().i16(-1, 0, 0, 0, 0).u16(0x0002 | 0x0040, 1).i8(0, 0).i16(24576, 4096).done(),
    // Four control points at the square's corners: a rounded square through their midpoints.
    new Writer().i16(1, 0, 0, 100, 100).u16(3, 0).u8(0, 0, 0, 0).i16(0, 0, 100, 0)
      .i16(0, 100, 0, -100).done(),
  ];
  const padded = glyphs.map((glyph) => {
    const out = new Uint8Array((glyph.length + 3) & ~3);
    out.set(glyph);
    return out;
  });
  const loca = new Writer();
  let offset = 0;
  for (const glyph of padded) {
    loca.u32(offset);
    offset += glyph.length;
  }
  loca.u32(offset);
  const glyf = new Uint8Array(offset);
  offset = 0;
  for (const glyph of padded) {
    glyf.set(glyph, offset);
    offset += glyph.length;
  }
  const head = new Writer().u32(0x00010000, 0, 0, 0x5f0f3cf5).u16(0, 1000);
  while (head.bytes.length < 50) head.u8(0);
  head.i16(1, 0); // long loca offsets
  const hhea = new Writer().u32(0x00010000).i16(800, -200);
  while (hhea.bytes.length < 34) hhea.u8(0);
  hhea.u16(2); // glyphs past the second share its advance
  const groups = [[0x2e, 0x2e, 1], [0x41, 0x45, 1], [0x1f600, 0x1f600, 6]];
  const cmap = new Writer().u16(0, 1).u16(3, 10).u32(12)
    .u16(12, 0).u32(16 + 12 * groups.length, 0, groups.length);
  for (const group of groups) cmap.u32(...group);
  return buildSfnt(
    new Map([
      ["head", head.done()],
      ["hhea", hhea.done()],
      ["maxp", new Writer().u32(0x00005000).u16(glyphs.length).done()],
      ["hmtx", new Writer().u16(500, 0, 600, 0).done()],
      ["cmap", cmap.done()],
      ["loca", loca.done()],
      ["glyf", glyf],
    ]),
  );
}

/** The outline's points as [x, y] pairs, contour by contour. */
function pointsOf(font: Font, glyphId: number): number[][][] {
  return font.outline(glyphId).map((contour) => contour.map((point) => [point.x, point.y]));
}

/** The coverage of the mask at target pixel (x, y), 0 outside it. */
function coverageAt(mask: Mask, x: number, y: number): number {
  const column = x - mask.x;
  const row = y - mask.y;
  if (column < 0 || row < 0 || column >= mask.width || row >= mask.height) return 0;
  return mask.coverage[row * mask.width + column];
}

/** The mask's ink in pixels (full coverage counts 1). */
function ink(mask: Mask): number {
  return mask.coverage.reduce((sum, value) => sum + value, 0) / 255;
}

Deno.test("Inter's latin subset parses from WOFF with its metrics, cmap and outlines", async () => {
  const font = await loadFont(LATIN);
  assert.equal(font.unitsPerEm, 2048);
  assert.equal(font.ascender, 1984);
  assert.equal(font.descender, -494);
  const a = font.glyphIndex("A".codePointAt(0)!);
  assert.ok(a > 0);
  assert.ok(font.advance(a) > 0);
  assert.ok(font.outline(a).length >= 2, "A has an outer and an inner contour");
  assert.equal(font.glyphIndex(0x6f22), 0, "no CJK in the latin subset");
  // "é" is a composite (e with an acute above it): more contours than "e".
  const e = font.outline(font.glyphIndex(0x65));
  const eAcute = font.outline(font.glyphIndex(0xe9));
  assert.equal(eAcute.length, e.length + 1);
  assert.ok(Math.max(...eAcute.flat().map((p) => p.y)) > Math.max(...e.flat().map((p) => p.y)));
});

Deno.test("the same font as a raw sfnt gives the same glyphs as its WOFF", async () => {
  const fromWoff = await loadFont(LATIN);
  const fromSfnt = await loadFont(await woffToSfnt(LATIN));
  assert.equal(fromSfnt.glyphCount, fromWoff.glyphCount);
  assert.equal(fromSfnt.unitsPerEm, fromWoff.unitsPerEm);
  for (let codePoint = 0; codePoint < 0x3000; codePoint++) {
    assert.equal(fromSfnt.glyphIndex(codePoint), fromWoff.glyphIndex(codePoint));
  }
  for (let glyphId = 0; glyphId < fromWoff.glyphCount; glyphId++) {
    assert.equal(fromSfnt.advance(glyphId), fromWoff.advance(glyphId));
    assert.deepEqual(fromSfnt.outline(glyphId), fromWoff.outline(glyphId));
  }
});

Deno.test("composite glyphs are scaled, moved, turned and anchored by points", async () => {
  const font = await loadFont(syntheticFont());
  assert.equal(font.unitsPerEm, 1000);
  const square = [[[0, 0], [0, 100], [100, 100], [100, 0]]];
  assert.deepEqual(pointsOf(font, 1), square);
  assert.deepEqual(pointsOf(font, 2), [[[10, 20], [10, 70], [60, 70], [60, 20]]]);
  assert.deepEqual(pointsOf(font, 3), [
    [[-5, 0], [-5, 100], [95, 100], [95, 0]],
    [[200, 0], [100, 0], [100, 100], [200, 100]],
  ]);
  assert.deepEqual(pointsOf(font, 4), [...square, [[100, 100], [100, 150], [150, 150], [
    150,
    100,
  ]]]);
  assert.deepEqual(pointsOf(font, 5), [[[0, 0], [0, 25], [150, 25], [150, 0]]]);
  // cmap format 12 reaches past the Basic Multilingual Plane.
  assert.equal(font.glyphIndex(0x1f600), 6);
  assert.equal(font.glyphIndex(0x42), 2);
  assert.equal(font.glyphIndex(0x46), 0);
  // Advances past the last long metric repeat it.
  assert.deepEqual([0, 1, 2, 6].map((glyphId) => font.advance(glyphId)), [500, 600, 600, 600]);
});

Deno.test("a CFF font and a truncated file are refused", async () => {
  const cff = new Uint8Array(12);
  new DataView(cff.buffer).setUint32(0, 0x4f54544f);
  await assert.rejects(() => loadFont(cff), /CFF/);
  await assert.rejects(() => loadFont(new Uint8Array(4)), /too short/);
});

Deno.test("the frame's fonts are Inter's seven subsets, latin first, loaded once", async () => {
  assert.deepEqual(FRAME_FONT_FILES.map((file) => file.name), [
    "inter-latin-400.woff",
    "inter-latin-ext-400.woff",
    "inter-cyrillic-400.woff",
    "inter-cyrillic-ext-400.woff",
    "inter-greek-400.woff",
    "inter-greek-ext-400.woff",
    "inter-vietnamese-400.woff",
  ]);
  const stack = await loadFrameFonts();
  assert.equal(stack.fonts.length, FRAME_FONT_FILES.length);
  assert.equal(await loadFrameFonts(), stack);
});

/** A stack whose fonts are the frame's, each known by its file name. */
async function namedStack(): Promise<{ stack: FontStack; nameOf: (font: Font) => string }> {
  const stack = await loadFrameFonts();
  return {
    stack,
    nameOf: (font) => FRAME_FONT_FILES[stack.fonts.indexOf(font)].name,
  };
}

Deno.test("a line is as wide as its glyphs' advances, without kerning", async () => {
  const { stack } = await namedStack();
  const latin = stack.fonts[0];
  const run = layoutText(stack, "Hello", 20, 1000);
  const advances = [..."Hello"].map((char) =>
    (latin.advance(latin.glyphIndex(char.codePointAt(0)!)) * 20) / latin.unitsPerEm
  );
  assert.equal(run.text, "Hello");
  assert.equal(run.glyphs.length, 5);
  assert.ok(Math.abs(run.width - advances.reduce((a, b) => a + b)) < 1e-9);
  assert.deepEqual(run.glyphs.map((glyph) => glyph.x), [
    0,
    advances[0],
    advances[0] + advances[1],
    advances[0] + advances[1] + advances[2],
    advances[0] + advances[1] + advances[2] + advances[3],
  ]);
  assert.equal(run.size, 20);
  assert.equal(run.ascent, (1984 * 20) / 2048);
  assert.equal(run.descent, (494 * 20) / 2048);
});

Deno.test("a line too wide is cut at a glyph and ends in an ellipsis that fits", async () => {
  const { stack } = await namedStack();
  const title = "Shotline turns any page into a framed screenshot worth sharing";
  const full = layoutText(stack, title, 16);
  for (const maxWidth of [40, 100, 123.4, full.width - 0.01]) {
    const run = layoutText(stack, title, 16, maxWidth);
    assert.ok(run.width <= maxWidth, `${run.width} <= ${maxWidth}`);
    assert.ok(run.text.endsWith("…"), run.text);
    assert.ok(!run.text.endsWith(" …"), "no space before the ellipsis");
    assert.ok(title.startsWith(run.text.slice(0, -1)));
    assert.equal(run.glyphs.length, [...run.text].length);
    // The next visible character would not have fitted.
    const kept = run.text.slice(0, -1);
    const next = title.slice(kept.length).match(/^\s*\S/)![0];
    assert.ok(layoutText(stack, kept + next + "…", 16).width > maxWidth);
  }
  assert.equal(layoutText(stack, title, 16, full.width).text, title, "an exact fit is kept");
});

Deno.test("a line too narrow for even the ellipsis is empty", async () => {
  const { stack } = await namedStack();
  const run = layoutText(stack, "Hello", 16, 3);
  assert.equal(run.text, "");
  assert.equal(run.width, 0);
  assert.deepEqual(run.glyphs, []);
  const mask = rasterizeText(run, 10.5, 20.5);
  assert.deepEqual([mask.width, mask.height, mask.coverage.length], [0, 0, 0]);
});

Deno.test("without an ellipsis glyph a cut line ends in three dots", async () => {
  const stack = fontStack([await loadFont(syntheticFont())]);
  // Each glyph, "." included, is 6 px wide at 10 px per em.
  const run = layoutText(stack, "AAAAAAAAAA", 10, 40);
  assert.equal(run.text, "AAA...");
  assert.equal(run.width, 36);
});

Deno.test("control characters go, whitespace collapses to single spaces, ends are trimmed", async () => {
  const { stack } = await namedStack();
  const run = layoutText(stack, " \t Hello\u0007 \n\n  wide\u00a0\u200b world \r\n", 16);
  assert.equal(run.text, "Hello wide world");
  assert.equal(layoutText(stack, " \n\t ", 16).text, "");
  // Decomposed accents become the precomposed glyph.
  assert.equal(layoutText(stack, "e\u0301", 16).text, "é");
});

Deno.test("Cyrillic and Greek come from their subsets, CJK is the first font's .notdef", async () => {
  const { stack, nameOf } = await namedStack();
  const russian = layoutText(stack, "Привет", 16);
  assert.deepEqual(
    new Set(russian.glyphs.map((glyph) => nameOf(glyph.font))),
    new Set(["inter-cyrillic-400.woff"]),
  );
  assert.ok(russian.glyphs.every((glyph) => glyph.glyphId !== 0));
  const greek = layoutText(stack, "Καλημέρα", 16);
  assert.deepEqual(
    new Set(greek.glyphs.map((glyph) => nameOf(glyph.font))),
    new Set(["inter-greek-400.woff"]),
  );
  assert.ok(greek.glyphs.every((glyph) => glyph.glyphId !== 0));
  const mixed = layoutText(stack, "A漢", 16);
  assert.equal(mixed.glyphs[1].font, stack.fonts[0]);
  assert.equal(mixed.glyphs[1].glyphId, 0);
  assert.ok(mixed.width > layoutText(stack, "A", 16).width, ".notdef has an advance");
  assert.ok(
    ink(rasterizeText(mixed, 0, 20)) > ink(rasterizeText(layoutText(stack, "A", 16), 0, 20)),
  );
});

Deno.test("an H at 100 px has two solid stems with nothing between them above the bar", async () => {
  const { stack } = await namedStack();
  const mask = rasterizeText(layoutText(stack, "H", 100), 10, 120);
  // Cap height is about 0.73 em: the H spans rows ~47 to 120, its bar near the middle.
  assert.ok(mask.y >= 45 && mask.y <= 50, `top ${mask.y}`);
  assert.equal(mask.y + mask.height, 120);
  const row = mask.y + Math.round(mask.height / 4);
  const values = Array.from({ length: mask.width }, (_, i) => coverageAt(mask, mask.x + i, row));
  const solid = values.flatMap((value, i) => (value === 255 ? [i] : []));
  assert.ok(solid.length >= 10, `solid columns ${solid}`);
  // Solid columns form two runs separated by a gap of empty ones.
  const runs: number[][] = [];
  for (const i of solid) {
    const last = runs.at(-1);
    if (last && last.at(-1) === i - 1) last.push(i);
    else runs.push([i]);
  }
  assert.equal(runs.length, 2, `runs ${JSON.stringify(runs)}`);
  const gap = values.slice(runs[0].at(-1)! + 2, runs[1][0] - 1);
  assert.ok(gap.length >= 30 && gap.every((value) => value === 0), `gap ${gap}`);
  // Every row of a stem down the glyph's height is solid except the anti-aliased edges.
  const stem = mask.x + runs[0][1];
  for (let y = mask.y + 1; y < mask.y + mask.height - 1; y++) {
    assert.equal(coverageAt(mask, stem, y), 255, `row ${y}`);
  }
});

Deno.test("a half-pixel shift changes the coverage but not the ink", async () => {
  const { stack } = await namedStack();
  const run = layoutText(stack, "Shotline", 24);
  const at = rasterizeText(run, 3, 30);
  const shifted = rasterizeText(run, 3.5, 30);
  assert.notDeepEqual(at.coverage, shifted.coverage);
  assert.ok(Math.abs(ink(at) - ink(shifted)) / ink(at) < 0.01, `${ink(at)} vs ${ink(shifted)}`);
});

Deno.test("rasterizing twice gives the same bytes", async () => {
  const { stack } = await namedStack();
  const run = layoutText(stack, "Ünïcödé — Привет, Καλημέρα! Tiếng Việt", 17.3);
  const first = rasterizeText(run, 2.25, 19.8);
  const second = rasterizeText(
    layoutText(stack, "Ünïcödé — Привет, Καλημέρα! Tiếng Việt", 17.3),
    2.25,
    19.8,
  );
  assert.deepEqual(second, first);
});

Deno.test("Hello at 20 px has a plausible amount of ink", async () => {
  const { stack } = await namedStack();
  const run = layoutText(stack, "Hello", 20);
  const mask = rasterizeText(run, 0, 20);
  // Thin strokes: some 15 to 35 % of the box from the top of H to the baseline.
  const box = run.width * 20 * 0.73;
  assert.ok(ink(mask) > 0.15 * box && ink(mask) < 0.35 * box, `${ink(mask)} of ${box}`);
  assert.ok(mask.coverage.every((value) => value >= 0 && value <= 255));
});

Deno.test("coverage is the exact area of the shape", async () => {
  const stack = fontStack([await loadFont(syntheticFont())]);
  // A 10 px square on pixel edges is 100 full pixels; half a pixel over, its sides are half full.
  const square = rasterizeText(layoutText(stack, "A", 100), 5, 20);
  assert.deepEqual([square.x, square.y, square.width, square.height], [5, 10, 10, 10]);
  assert.ok(square.coverage.every((value) => value === 255));
  const straddling = rasterizeText(layoutText(stack, "A", 100), 5.5, 20);
  assert.equal(straddling.width, 11);
  assert.equal(coverageAt(straddling, 5, 15), 128);
  assert.equal(coverageAt(straddling, 10, 15), 255);
  assert.equal(coverageAt(straddling, 15, 15), 128);
  // Four curves through the square's side midpoints enclose 5/6 of it: 83.3 px² less what the
  // straight pieces cut off the curves.
  const rounded = rasterizeText(layoutText(stack, "\u{1f600}", 100), 5.25, 20.5);
  assert.ok(Math.abs(ink(rounded) - 250 / 3) < 1.5, `${ink(rounded)}`);
});
