// @ts-check
// One line of text: laid out from a font stack and drawn into an anti-aliased coverage mask.
// Only + - * / and Math.floor/ceil/round/min/max/abs/sqrt touch the pixels, so the mask is the
// same bytes in every JavaScript engine that follows IEEE 754 (the editor's and the server's).

/** @typedef {import("./font.js").Font} Font */
/** @typedef {import("./font.js").FontStack} FontStack */

/**
 * A laid-out line in pixels: glyph `x` is the pen position from the line's start; `ascent` and
 * `descent` are the first font's, both positive (above and below the baseline).
 * @typedef {{
 *   text: string,
 *   width: number,
 *   ascent: number,
 *   descent: number,
 *   size: number,
 *   glyphs: ReadonlyArray<{ font: Font, glyphId: number, x: number }>,
 * }} TextRun
 */

/**
 * Anti-aliased coverage (0 transparent to 255 opaque), row-major, whose top-left pixel is at
 * (`x`, `y`) of the target.
 * @typedef {{ x: number, y: number, width: number, height: number, coverage: Uint8Array }} Mask
 */

const ELLIPSIS = "\u2026";
// Control and format characters are invisible in a title and Inter has no glyph for them: kept,
// they would draw .notdef boxes.
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;
const WHITESPACE = /\s+/gu;
// The widest a straight piece of a flattened curve strays from the curve, in pixels.
const FLATNESS = 0.1;
const MAX_CURVE_PIECES = 64;

/**
 * Lays out one line of `text` at `size` pixels per em, shortened with an ellipsis to fit
 * `maxWidth`.
 * @param {FontStack} stack
 * @param {string} text
 * @param {number} size
 * @param {number} [maxWidth]
 * @returns {TextRun}
 */
export function layoutText(stack, text, size, maxWidth = Infinity) {
  const primary = stack.fonts[0];
  const ascent = (primary.ascender * size) / primary.unitsPerEm;
  const descent = (-primary.descender * size) / primary.unitsPerEm;
  const normalized = text.normalize("NFC").replace(INVISIBLE, "").replace(WHITESPACE, " ").trim();

  const placed = place(stack, [...normalized], size, 0);
  if (placed.width <= maxWidth) {
    return { text: normalized, width: placed.width, ascent, descent, size, glyphs: placed.glyphs };
  }

  const ellipsis = stack.lookup(ELLIPSIS.codePointAt(0) ?? 0).glyphId !== 0
    ? [ELLIPSIS]
    : [".", ".", "."];
  // Measured from each candidate pen position the way it will be placed, so the width checked
  // is the width returned to the last bit.
  const endAfterEllipsis = (/** @type {number} */ start) =>
    place(stack, ellipsis, size, start).width;
  if (endAfterEllipsis(0) > maxWidth) {
    return { text: "", width: 0, ascent, descent, size, glyphs: [] };
  }

  // The longest prefix that leaves room for the ellipsis, without the spaces it ends in.
  let kept = 0;
  while (kept < placed.glyphs.length && endAfterEllipsis(placed.ends[kept]) <= maxWidth) kept++;
  while (kept > 0 && placed.chars[kept - 1] === " ") kept--;
  const prefixWidth = kept === 0 ? 0 : placed.ends[kept - 1];
  const tail = place(stack, ellipsis, size, prefixWidth);
  return {
    text: placed.chars.slice(0, kept).join("") + ellipsis.join(""),
    width: tail.width,
    ascent,
    descent,
    size,
    glyphs: [...placed.glyphs.slice(0, kept), ...tail.glyphs],
  };
}

/**
 * Places characters one after another from pen position `start`. Advances come from hmtx alone:
 * no kerning or shaping, which a short title in a browser bar does without.
 * @param {FontStack} stack
 * @param {string[]} chars
 * @param {number} size
 * @param {number} start
 */
function place(stack, chars, size, start) {
  /** @type {{ font: Font, glyphId: number, x: number }[]} */
  const glyphs = [];
  /** Pen position after each glyph. */
  const ends = [];
  let pen = start;
  for (const char of chars) {
    const { font, glyphId } = stack.lookup(char.codePointAt(0) ?? 0);
    glyphs.push({ font, glyphId, x: pen });
    pen += (font.advance(glyphId) * size) / font.unitsPerEm;
    ends.push(pen);
  }
  return { glyphs, ends, chars, width: pen };
}

/**
 * Draws a run with its start at `x` and its baseline at `baseline` (target pixels, y down).
 * @param {TextRun} run
 * @param {number} x
 * @param {number} baseline
 * @returns {Mask}
 */
export function rasterizeText(run, x, baseline) {
  /** @type {number[][]} Each flattened contour as x0, y0, x1, y1, … in target pixels. */
  const polygons = [];
  for (const glyph of run.glyphs) {
    const scale = run.size / glyph.font.unitsPerEm;
    const originX = x + glyph.x;
    for (const contour of glyph.font.outline(glyph.glyphId)) {
      const points = contour.map((point) => ({
        x: originX + point.x * scale,
        y: baseline - point.y * scale,
        onCurve: point.onCurve,
      }));
      const polygon = flattenContour(points);
      if (polygon.length >= 6) polygons.push(polygon);
    }
  }
  if (polygons.length === 0) {
    return {
      x: Math.floor(x),
      y: Math.floor(baseline),
      width: 0,
      height: 0,
      coverage: new Uint8Array(0),
    };
  }

  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const polygon of polygons) {
    for (let i = 0; i < polygon.length; i += 2) {
      minX = Math.min(minX, polygon[i]);
      maxX = Math.max(maxX, polygon[i]);
      minY = Math.min(minY, polygon[i + 1]);
      maxY = Math.max(maxY, polygon[i + 1]);
    }
  }
  const left = Math.floor(minX);
  const top = Math.floor(minY);
  const width = Math.max(1, Math.ceil(maxX) - left);
  const height = Math.max(1, Math.ceil(maxY) - top);

  const area = new Float64Array((width + 2) * height);
  for (const polygon of polygons) {
    const count = polygon.length;
    for (let i = 0; i < count; i += 2) {
      const next = (i + 2) % count;
      accumulateLine(
        area,
        width,
        height,
        polygon[i] - left,
        polygon[i + 1] - top,
        polygon[next] - left,
        polygon[next + 1] - top,
      );
    }
  }
  return { x: left, y: top, width, height, coverage: resolveCoverage(area, width, height) };
}

/**
 * A TrueType contour (on-curve points joined by lines or by quadratic curves through off-curve
 * control points) as a closed polygon.
 * @param {ReadonlyArray<{ x: number, y: number, onCurve: boolean }>} points
 * @returns {number[]}
 */
function flattenContour(points) {
  const count = points.length;
  if (count < 2) return [];
  // Start at an on-curve point; a contour of only control points starts between two of them.
  const firstOnCurve = points.findIndex((point) => point.onCurve);
  const first = Math.max(0, firstOnCurve);
  const start = firstOnCurve >= 0 ? points[first] : {
    x: (points[count - 1].x + points[0].x) / 2,
    y: (points[count - 1].y + points[0].y) / 2,
    onCurve: true,
  };
  /** @type {number[]} */
  const polygon = [start.x, start.y];
  /** @type {{ x: number, y: number }} */
  let current = start;
  /** @type {{ x: number, y: number } | null} */
  let control = firstOnCurve >= 0 ? null : points[0];
  for (let step = 1; step <= count; step++) {
    // The walk wraps around to the start, which closes the contour.
    const point = step === count ? start : points[(first + step) % count];
    if (point.onCurve) {
      if (control) flattenQuadratic(polygon, current, control, point);
      else polygon.push(point.x, point.y);
      current = point;
      control = null;
    } else if (control) {
      const middle = { x: (control.x + point.x) / 2, y: (control.y + point.y) / 2 };
      flattenQuadratic(polygon, current, control, middle);
      current = middle;
      control = point;
    } else {
      control = point;
    }
  }
  // The walk ends back on the start point: drop the duplicate, the polygon closes itself.
  polygon.length -= 2;
  return polygon;
}

/**
 * Appends the quadratic curve from `from` (already in the polygon) through `control` to `to` as
 * straight pieces; their number grows with the curve's bend so the error stays under FLATNESS.
 * @param {number[]} polygon
 * @param {{ x: number, y: number }} from
 * @param {{ x: number, y: number }} control
 * @param {{ x: number, y: number }} to
 */
function flattenQuadratic(polygon, from, control, to) {
  // Uniform steps of 1/n stray at most |from - 2·control + to| / (4n²) from the curve.
  const bendX = from.x - 2 * control.x + to.x;
  const bendY = from.y - 2 * control.y + to.y;
  const bend = Math.sqrt(bendX * bendX + bendY * bendY);
  const pieces = Math.min(
    MAX_CURVE_PIECES,
    Math.max(1, Math.ceil(Math.sqrt(bend / (4 * FLATNESS)))),
  );
  for (let i = 1; i < pieces; i++) {
    const t = i / pieces;
    const u = 1 - t;
    polygon.push(
      u * u * from.x + 2 * u * t * control.x + t * t * to.x,
      u * u * from.y + 2 * u * t * control.y + t * t * to.y,
    );
  }
  polygon.push(to.x, to.y);
}

/**
 * Adds a line's signed area to the accumulation buffer: for each pixel row it crosses, the
 * fraction of each pixel lying right of the line, as differences along the row so a running sum
 * gives the winding-weighted coverage. Lines going down count +, going up −.
 * @param {Float64Array} area rows of `width + 2` cells
 * @param {number} width
 * @param {number} height
 * @param {number} x0
 * @param {number} y0
 * @param {number} x1
 * @param {number} y1
 */
function accumulateLine(area, width, height, x0, y0, x1, y1) {
  if (y0 === y1) return; // horizontal lines cover nothing
  const direction = y0 < y1 ? 1 : -1;
  const [topX, topY, bottomX, bottomY] = y0 < y1 ? [x0, y0, x1, y1] : [x1, y1, x0, y0];
  const slope = (bottomX - topX) / (bottomY - topY);
  const stride = width + 2;
  const firstRow = Math.max(0, Math.floor(topY));
  const lastRow = Math.min(height - 1, Math.ceil(bottomY) - 1);
  for (let row = firstRow; row <= lastRow; row++) {
    const enterY = Math.max(topY, row);
    const leaveY = Math.min(bottomY, row + 1);
    if (leaveY <= enterY) continue;
    const signedHeight = (leaveY - enterY) * direction;
    const enterX = topX + (enterY - topY) * slope;
    const leaveX = topX + (leaveY - topY) * slope;
    const fromX = Math.max(0, Math.min(enterX, leaveX));
    const toX = Math.min(width, Math.max(enterX, leaveX));
    const rowStart = row * stride;
    const firstColumn = Math.floor(fromX);
    const lastColumn = Math.ceil(toX);
    if (lastColumn - firstColumn <= 1) {
      // Within one pixel column: the part right of the line is a trapezoid.
      const inside = firstColumn + 1 - (fromX + toX) / 2;
      area[rowStart + firstColumn] += signedHeight * inside;
      area[rowStart + firstColumn + 1] += signedHeight * (1 - inside);
      continue;
    }
    // Across several columns, x is spread evenly over [fromX, toX]; the share of column c right
    // of the line is rightOf(c + 1) − rightOf(c), where rightOf(u) is the mean of max(u − x, 0).
    const span = toX - fromX;
    const middle = (fromX + toX) / 2;
    /** @param {number} u */
    const rightOf = (u) =>
      u <= fromX ? 0 : u >= toX ? u - middle : ((u - fromX) * (u - fromX)) / (2 * span);
    let before = 0;
    for (let column = firstColumn; column <= lastColumn; column++) {
      const share = column >= lastColumn ? 1 : rightOf(column + 1) - rightOf(column);
      area[rowStart + column] += signedHeight * (share - before);
      before = share;
    }
  }
}

/**
 * Running sums along each row, folded to 0..255 (nonzero winding, overlaps clamped).
 * @param {Float64Array} area
 * @param {number} width
 * @param {number} height
 */
function resolveCoverage(area, width, height) {
  const coverage = new Uint8Array(width * height);
  const stride = width + 2;
  for (let row = 0; row < height; row++) {
    let sum = 0;
    for (let column = 0; column < width; column++) {
      sum += area[row * stride + column];
      coverage[row * width + column] = Math.round(Math.min(1, Math.abs(sum)) * 255);
    }
  }
  return coverage;
}
