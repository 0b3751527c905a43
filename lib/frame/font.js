// @ts-check
// A minimal reader for TrueType-outline fonts (raw sfnt or WOFF 1.0): just enough of head, hhea,
// maxp, hmtx, cmap, loca and glyf to lay out and draw a line of text. Plain JavaScript with no
// DOM or Deno API so the same module runs in the editor and on the server.

/**
 * A point of a glyph's outline in font units, y up; off-curve points are quadratic control
 * points (two in a row imply an on-curve point halfway between them).
 * @typedef {{ x: number, y: number, onCurve: boolean }} OutlinePoint
 */

/** A glyph's closed contours. Shared and memoised: callers must not modify it. */
/** @typedef {ReadonlyArray<ReadonlyArray<OutlinePoint>>} Outline */

/**
 * A parsed font. Metrics are in font units; `descender` is negative (below the baseline) as in
 * hhea.
 * @typedef {{
 *   unitsPerEm: number,
 *   ascender: number,
 *   descender: number,
 *   glyphCount: number,
 *   glyphIndex: (codePoint: number) => number,
 *   advance: (glyphId: number) => number,
 *   outline: (glyphId: number) => Outline,
 * }} Font
 */

/**
 * Fonts tried in order for each code point. `lookup` answers the first font that has a glyph
 * for it, or the first font's .notdef (glyph 0) when none has.
 * @typedef {{
 *   fonts: ReadonlyArray<Font>,
 *   lookup: (codePoint: number) => { font: Font, glyphId: number },
 * }} FontStack
 */

const WOFF_SIGNATURE = 0x774f4646; // "wOFF"
const TRUETYPE_VERSIONS = [0x00010000, 0x74727565]; // 1.0 and "true"
const OPENTYPE_CFF = 0x4f54544f; // "OTTO"
const NEEDED_TABLES = ["head", "hhea", "maxp", "hmtx", "cmap", "loca", "glyf"];
// Composite glyphs nest; a limit keeps a malformed font that refers to itself from looping.
const MAX_COMPOSITE_DEPTH = 8;

/**
 * Parses a WOFF 1.0 file or a raw TrueType sfnt into a `Font`.
 * @param {Uint8Array} bytes
 * @returns {Promise<Font>}
 */
export async function loadFont(bytes) {
  if (bytes.length < 12) throw new Error("font: too short to be a font file");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const signature = view.getUint32(0);
  const tables = signature === WOFF_SIGNATURE
    ? await woffTables(bytes, view)
    : sfntTables(bytes, view, signature);
  return parseTables(tables);
}

/**
 * Builds a fallback list of fonts: each code point is drawn by the first font that has it.
 * @param {ReadonlyArray<Font>} fonts
 * @returns {FontStack}
 */
export function fontStack(fonts) {
  if (fonts.length === 0) throw new Error("font: a font stack needs at least one font");
  const list = [...fonts];
  // Not memoised: a cmap lookup is a short binary search, and titles come from arbitrary pages,
  // so a cache keyed by code point would only grow.
  return {
    fonts: list,
    lookup(codePoint) {
      for (const font of list) {
        const glyphId = font.glyphIndex(codePoint);
        if (glyphId !== 0) return { font, glyphId };
      }
      return { font: list[0], glyphId: 0 };
    },
  };
}

/** @typedef {Map<string, DataView>} Tables */

/**
 * The tables of a raw sfnt.
 * @param {Uint8Array} bytes
 * @param {DataView} view
 * @param {number} version
 * @returns {Tables}
 */
function sfntTables(bytes, view, version) {
  if (version === OPENTYPE_CFF) throw new Error("font: CFF outlines are not supported");
  if (!TRUETYPE_VERSIONS.includes(version)) throw new Error("font: not a TrueType or WOFF file");
  const count = view.getUint16(4);
  /** @type {Tables} */
  const tables = new Map();
  for (let i = 0; i < count; i++) {
    const record = 12 + 16 * i;
    const tag = tagAt(view, record);
    const offset = view.getUint32(record + 8);
    const length = view.getUint32(record + 12);
    if (offset + length > bytes.length) throw new Error(`font: table ${tag} runs past the end`);
    tables.set(tag, new DataView(bytes.buffer, bytes.byteOffset + offset, length));
  }
  return tables;
}

/**
 * The tables of a WOFF 1.0 file, inflating the compressed ones this reader needs.
 * @param {Uint8Array} bytes
 * @param {DataView} view
 * @returns {Promise<Tables>}
 */
async function woffTables(bytes, view) {
  const flavor = view.getUint32(4);
  if (flavor === OPENTYPE_CFF) throw new Error("font: CFF outlines are not supported");
  const count = view.getUint16(12);
  /** @type {Promise<[string, DataView]>[]} */
  const pending = [];
  for (let i = 0; i < count; i++) {
    const entry = 44 + 20 * i;
    const tag = tagAt(view, entry);
    // Layout, naming and hinting tables are never read: leave them compressed.
    if (!NEEDED_TABLES.includes(tag)) continue;
    const offset = view.getUint32(entry + 4);
    const compressedLength = view.getUint32(entry + 8);
    const length = view.getUint32(entry + 12);
    if (offset + compressedLength > bytes.length) {
      throw new Error(`font: table ${tag} runs past the end`);
    }
    const stored = bytes.subarray(offset, offset + compressedLength);
    pending.push((async () => {
      const data = compressedLength < length ? await inflate(stored) : stored;
      if (data.length !== length) throw new Error(`font: table ${tag} has the wrong length`);
      return [tag, new DataView(data.buffer, data.byteOffset, data.byteLength)];
    })());
  }
  return new Map(await Promise.all(pending));
}

/**
 * Inflates zlib-wrapped deflate data.
 * @param {Uint8Array} compressed
 * @returns {Promise<Uint8Array>}
 */
async function inflate(compressed) {
  const stream = new DecompressionStream("deflate");
  const writer = stream.writable.getWriter();
  // Written and closed without waiting: the writes only settle as the output is read.
  const written = writer.write(new Uint8Array(compressed)).then(() => writer.close());
  const reader = stream.readable.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.length;
  }
  await written;
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * @param {DataView} view
 * @param {number} offset
 */
function tagAt(view, offset) {
  return String.fromCharCode(
    view.getUint8(offset),
    view.getUint8(offset + 1),
    view.getUint8(offset + 2),
    view.getUint8(offset + 3),
  );
}

/**
 * @param {Tables} tables
 * @param {string} tag
 */
function table(tables, tag) {
  const found = tables.get(tag);
  if (!found) throw new Error(`font: no ${tag} table`);
  return found;
}

/**
 * @param {Tables} tables
 * @returns {Font}
 */
function parseTables(tables) {
  const head = table(tables, "head");
  const hhea = table(tables, "hhea");
  const maxp = table(tables, "maxp");
  const hmtx = table(tables, "hmtx");
  const loca = table(tables, "loca");
  const glyf = table(tables, "glyf");

  const unitsPerEm = head.getUint16(18);
  const longOffsets = head.getInt16(50) === 1;
  const ascender = hhea.getInt16(4);
  const descender = hhea.getInt16(6);
  const numberOfHMetrics = hhea.getUint16(34);
  const glyphCount = maxp.getUint16(4);
  if (unitsPerEm === 0 || numberOfHMetrics === 0) throw new Error("font: bad head or hhea");
  const cmap = parseCmap(table(tables, "cmap"));

  /** @param {number} glyphId */
  const glyphRange = (glyphId) => {
    if (longOffsets) return [loca.getUint32(4 * glyphId), loca.getUint32(4 * glyphId + 4)];
    return [2 * loca.getUint16(2 * glyphId), 2 * loca.getUint16(2 * glyphId + 2)];
  };

  /** @type {Map<number, Outline>} */
  const outlines = new Map();

  /**
   * @param {number} glyphId
   * @param {number} depth
   * @returns {Outline}
   */
  const outlineAt = (glyphId, depth) => {
    if (!(glyphId >= 0 && glyphId < glyphCount) || depth > MAX_COMPOSITE_DEPTH) return [];
    const known = outlines.get(glyphId);
    if (known) return known;
    const [start, end] = glyphRange(glyphId);
    /** @type {Outline} */
    let outline = [];
    if (end > start && end <= glyf.byteLength) {
      const data = new DataView(glyf.buffer, glyf.byteOffset + start, end - start);
      const contours = data.getInt16(0);
      outline = contours >= 0
        ? parseSimpleGlyph(data, contours)
        : parseCompositeGlyph(data, (id) => outlineAt(id, depth + 1));
    }
    outlines.set(glyphId, outline);
    return outline;
  };

  return {
    unitsPerEm,
    ascender,
    descender,
    glyphCount,
    glyphIndex(codePoint) {
      const glyphId = cmap(codePoint);
      return glyphId < glyphCount ? glyphId : 0;
    },
    advance(glyphId) {
      if (!(glyphId >= 0 && glyphId < glyphCount)) return 0;
      // Glyphs past the last long metric share its advance (monospaced tails).
      return hmtx.getUint16(4 * Math.min(glyphId, numberOfHMetrics - 1));
    },
    outline: (glyphId) => outlineAt(glyphId, 0),
  };
}

/**
 * The code point to glyph mapping from the best Unicode subtable of format 4 or 12.
 * @param {DataView} cmap
 * @returns {(codePoint: number) => number}
 */
function parseCmap(cmap) {
  const count = cmap.getUint16(2);
  /** @type {{ rank: number, offset: number } | null} */
  let best = null;
  for (let i = 0; i < count; i++) {
    const record = 4 + 8 * i;
    const platform = cmap.getUint16(record);
    const encoding = cmap.getUint16(record + 2);
    const offset = cmap.getUint32(record + 4);
    const format = cmap.getUint16(offset);
    if (format !== 4 && format !== 12) continue;
    // Windows full Unicode, then Windows BMP, then any Unicode-platform table.
    const rank = platform === 3 && encoding === 10
      ? 3
      : platform === 3 && encoding === 1
      ? 2
      : platform === 0
      ? 1
      : 0;
    if (rank > 0 && (!best || rank > best.rank)) best = { rank, offset };
  }
  if (!best) throw new Error("font: no Unicode cmap subtable of format 4 or 12");
  const sub = new DataView(
    cmap.buffer,
    cmap.byteOffset + best.offset,
    cmap.byteLength - best.offset,
  );
  return sub.getUint16(0) === 4 ? cmapFormat4(sub) : cmapFormat12(sub);
}

/**
 * Segment mapping to delta values (Basic Multilingual Plane only).
 * @param {DataView} sub
 * @returns {(codePoint: number) => number}
 */
function cmapFormat4(sub) {
  const segments = sub.getUint16(6) / 2;
  const endCodes = 14;
  const startCodes = endCodes + 2 * segments + 2;
  const deltas = startCodes + 2 * segments;
  const rangeOffsets = deltas + 2 * segments;
  return (codePoint) => {
    if (codePoint > 0xffff || segments === 0) return 0;
    let low = 0;
    let high = segments - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (sub.getUint16(endCodes + 2 * mid) < codePoint) low = mid + 1;
      else high = mid;
    }
    if (sub.getUint16(endCodes + 2 * low) < codePoint) return 0;
    const start = sub.getUint16(startCodes + 2 * low);
    if (codePoint < start) return 0;
    const delta = sub.getUint16(deltas + 2 * low);
    const rangeOffsetAt = rangeOffsets + 2 * low;
    const rangeOffset = sub.getUint16(rangeOffsetAt);
    if (rangeOffset === 0) return (codePoint + delta) & 0xffff;
    // The offset counts from the idRangeOffset entry itself into glyphIdArray.
    const at = rangeOffsetAt + rangeOffset + 2 * (codePoint - start);
    if (at + 2 > sub.byteLength) return 0;
    const glyphId = sub.getUint16(at);
    return glyphId === 0 ? 0 : (glyphId + delta) & 0xffff;
  };
}

/**
 * Segmented coverage (all of Unicode).
 * @param {DataView} sub
 * @returns {(codePoint: number) => number}
 */
function cmapFormat12(sub) {
  const groups = sub.getUint32(12);
  const group = (/** @type {number} */ i) => 16 + 12 * i;
  return (codePoint) => {
    let low = 0;
    let high = groups - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const at = group(mid);
      if (codePoint < sub.getUint32(at)) high = mid - 1;
      else if (codePoint > sub.getUint32(at + 4)) low = mid + 1;
      else return sub.getUint32(at + 8) + (codePoint - sub.getUint32(at));
    }
    return 0;
  };
}

const ON_CURVE = 0x01;
const X_SHORT = 0x02;
const Y_SHORT = 0x04;
const REPEAT = 0x08;
const X_SAME_OR_POSITIVE = 0x10;
const Y_SAME_OR_POSITIVE = 0x20;

/**
 * A glyph made of its own contours.
 * @param {DataView} data
 * @param {number} contourCount
 * @returns {Outline}
 */
function parseSimpleGlyph(data, contourCount) {
  if (contourCount === 0) return [];
  let at = 10;
  /** @type {number[]} */
  const contourEnds = [];
  for (let i = 0; i < contourCount; i++, at += 2) contourEnds.push(data.getUint16(at));
  const pointCount = contourEnds[contourCount - 1] + 1;
  at += 2 + data.getUint16(at); // skip the hinting instructions

  const flags = new Uint8Array(pointCount);
  for (let i = 0; i < pointCount;) {
    const flag = data.getUint8(at++);
    flags[i++] = flag;
    if (flag & REPEAT) {
      for (let repeat = data.getUint8(at++); repeat > 0 && i < pointCount; repeat--) {
        flags[i++] = flag;
      }
    }
  }

  /**
   * Reads one coordinate array (deltas from the previous point).
   * @param {number} short
   * @param {number} sameOrPositive
   */
  const readCoordinates = (short, sameOrPositive) => {
    const values = new Int32Array(pointCount);
    let value = 0;
    for (let i = 0; i < pointCount; i++) {
      const flag = flags[i];
      if (flag & short) {
        const delta = data.getUint8(at++);
        value += flag & sameOrPositive ? delta : -delta;
      } else if (!(flag & sameOrPositive)) {
        value += data.getInt16(at);
        at += 2;
      }
      values[i] = value;
    }
    return values;
  };
  const xs = readCoordinates(X_SHORT, X_SAME_OR_POSITIVE);
  const ys = readCoordinates(Y_SHORT, Y_SAME_OR_POSITIVE);

  /** @type {OutlinePoint[][]} */
  const contours = [];
  let first = 0;
  for (const last of contourEnds) {
    /** @type {OutlinePoint[]} */
    const contour = [];
    for (let i = first; i <= last && i < pointCount; i++) {
      contour.push({ x: xs[i], y: ys[i], onCurve: (flags[i] & ON_CURVE) !== 0 });
    }
    if (contour.length > 0) contours.push(contour);
    first = last + 1;
  }
  return contours;
}

const ARGS_ARE_WORDS = 0x0001;
const ARGS_ARE_XY_VALUES = 0x0002;
const HAS_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const HAS_XY_SCALE = 0x0040;
const HAS_2X2 = 0x0080;
const SCALED_COMPONENT_OFFSET = 0x0800;

/**
 * A glyph assembled from other glyphs, each moved and optionally scaled or transformed.
 * @param {DataView} data
 * @param {(glyphId: number) => Outline} outlineOf
 * @returns {Outline}
 */
function parseCompositeGlyph(data, outlineOf) {
  /** @type {OutlinePoint[][]} */
  const contours = [];
  let at = 10;
  let flags = MORE_COMPONENTS;
  while (flags & MORE_COMPONENTS) {
    flags = data.getUint16(at);
    const glyphId = data.getUint16(at + 2);
    at += 4;
    let arg1;
    let arg2;
    if (flags & ARGS_ARE_WORDS) {
      const xy = flags & ARGS_ARE_XY_VALUES;
      arg1 = xy ? data.getInt16(at) : data.getUint16(at);
      arg2 = xy ? data.getInt16(at + 2) : data.getUint16(at + 2);
      at += 4;
    } else {
      const xy = flags & ARGS_ARE_XY_VALUES;
      arg1 = xy ? data.getInt8(at) : data.getUint8(at);
      arg2 = xy ? data.getInt8(at + 1) : data.getUint8(at + 1);
      at += 2;
    }
    // x' = a·x + c·y + dx, y' = b·x + d·y + dy
    let a = 1, b = 0, c = 0, d = 1;
    if (flags & HAS_SCALE) {
      a = d = f2dot14(data, at);
      at += 2;
    } else if (flags & HAS_XY_SCALE) {
      a = f2dot14(data, at);
      d = f2dot14(data, at + 2);
      at += 4;
    } else if (flags & HAS_2X2) {
      a = f2dot14(data, at);
      b = f2dot14(data, at + 2);
      c = f2dot14(data, at + 4);
      d = f2dot14(data, at + 6);
      at += 8;
    }
    const component = outlineOf(glyphId);
    let dx = 0;
    let dy = 0;
    if (flags & ARGS_ARE_XY_VALUES) {
      dx = arg1;
      dy = arg2;
      // Offsets are unscaled unless the font asks otherwise.
      if (flags & SCALED_COMPONENT_OFFSET) {
        dx = a * arg1 + c * arg2;
        dy = b * arg1 + d * arg2;
      }
    } else {
      // Anchored by points: the component's point arg2 lands on the glyph-so-far's point arg1.
      const anchor = contours.flat()[arg1];
      const own = component.flat()[arg2];
      if (anchor && own) {
        dx = anchor.x - (a * own.x + c * own.y);
        dy = anchor.y - (b * own.x + d * own.y);
      }
    }
    for (const contour of component) {
      contours.push(contour.map((point) => ({
        x: a * point.x + c * point.y + dx,
        y: b * point.x + d * point.y + dy,
        onCurve: point.onCurve,
      })));
    }
  }
  return contours;
}

/**
 * A 2.14 fixed-point number.
 * @param {DataView} data
 * @param {number} at
 */
function f2dot14(data, at) {
  return data.getInt16(at) / 16384;
}
