// @ts-check
// The frame's pixel operations on straight (not premultiplied) 8-bit RGBA: fills, analytic
// anti-aliased shapes, a soft shadow, resampling and masks. Only arithmetic the language defines
// exactly (no Math.exp or sin per pixel), so the editor in a browser and the server produce the
// same bytes.

/**
 * Straight RGBA pixels, 4 bytes a pixel, rows top to bottom.
 * @typedef {{ width: number, height: number, data: Uint8ClampedArray }} Rgba
 */
/** @typedef {[number, number, number, number]} Rgba8 r, g, b, alpha 0..255 */
/** @typedef {{ x: number, y: number, width: number, height: number }} Rect */
/** @typedef {Rect & { radius: number }} RoundRect */
/** @typedef {{ x: number, y: number, width: number, height: number, coverage: Uint8Array }} Mask */
/** @typedef {import("./design.js").Background} Background */

/**
 * A transparent image.
 * @param {number} width
 * @param {number} height
 * @returns {Rgba}
 */
export function createImage(width, height) {
  return { width, height, data: new Uint8ClampedArray(width * height * 4) };
}

/**
 * The gradient's parameter per pixel, CSS style: a line through the centre at `angle` (0deg up,
 * 90deg right), as long as the image seen along it, measured between pixel centres so that the
 * corners it runs from and to get exactly the end colours.
 * @param {number} width
 * @param {number} height
 * @param {number} angle degrees
 */
function gradientLine(width, height, angle) {
  const quarter = angle % 90 === 0;
  // Exact on the axes; the trigonometry runs once per image.
  const rad = (angle * Math.PI) / 180;
  const dx = quarter ? [0, 1, 0, -1][angle / 90] : Math.sin(rad);
  const dy = quarter ? [-1, 0, 1, 0][angle / 90] : -Math.cos(rad);
  const length = Math.abs((width - 1) * dx) + Math.abs((height - 1) * dy) || 1;
  return { dx: dx / length, dy: dy / length };
}

/**
 * Fills the whole image with a background (transparent leaves it clear).
 * @param {Rgba} image
 * @param {Background} background
 */
export function fillBackground(image, background) {
  const { width, height, data } = image;
  if (background.kind === "transparent") return;
  if (background.kind === "solid") {
    const [r, g, b] = background.color;
    for (let i = 0; i < data.length; i += 4) {
      data[i] = r;
      data[i + 1] = g;
      data[i + 2] = b;
      data[i + 3] = 255;
    }
    return;
  }
  const { from, to } = background;
  const { dx, dy } = gradientLine(width, height, background.angle);
  const dr = to[0] - from[0], dg = to[1] - from[1], db = to[2] - from[2];
  for (let y = 0, i = 0; y < height; y++) {
    const rowT = 0.5 + (y - (height - 1) / 2) * dy;
    for (let x = 0; x < width; x++, i += 4) {
      let t = rowT + (x - (width - 1) / 2) * dx;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      data[i] = Math.round(from[0] + dr * t);
      data[i + 1] = Math.round(from[1] + dg * t);
      data[i + 2] = Math.round(from[2] + db * t);
      data[i + 3] = 255;
    }
  }
}

/**
 * The background colour of one pixel (what a fade blends towards), or null for transparent.
 * @param {Background} background
 * @param {number} width
 * @param {number} height
 * @returns {((x: number, y: number) => Rgba8) | null}
 */
export function backgroundAt(background, width, height) {
  if (background.kind === "transparent") return null;
  if (background.kind === "solid") {
    const [r, g, b] = background.color;
    return () => [r, g, b, 255];
  }
  const { from, to } = background;
  const { dx, dy } = gradientLine(width, height, background.angle);
  return (x, y) => {
    let t = 0.5 + (y - (height - 1) / 2) * dy + (x - (width - 1) / 2) * dx;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return [
      Math.round(from[0] + (to[0] - from[0]) * t),
      Math.round(from[1] + (to[1] - from[1]) * t),
      Math.round(from[2] + (to[2] - from[2]) * t),
      255,
    ];
  };
}

/**
 * Signed distance from a pixel centre to a rounded rectangle's edge (negative inside).
 * @param {number} px
 * @param {number} py
 * @param {RoundRect} shape
 */
export function roundRectDistance(px, py, shape) {
  const hw = shape.width / 2, hh = shape.height / 2;
  const r = Math.min(shape.radius, hw, hh);
  const qx = Math.abs(px - (shape.x + hw)) - hw + r;
  const qy = Math.abs(py - (shape.y + hh)) - hh + r;
  const ox = qx > 0 ? qx : 0, oy = qy > 0 ? qy : 0;
  const outside = Math.sqrt(ox * ox + oy * oy);
  const inside = Math.min(Math.max(qx, qy), 0);
  return outside + inside - r;
}

/**
 * The part of a pixel a rounded rectangle covers, 0..1 (one pixel of anti-aliasing).
 * @param {number} x pixel column
 * @param {number} y pixel row
 * @param {RoundRect} shape
 */
export function coverageOf(x, y, shape) {
  const c = 0.5 - roundRectDistance(x + 0.5, y + 0.5, shape);
  return c <= 0 ? 0 : c >= 1 ? 1 : c;
}

/**
 * Source-over of one colour at `alpha` (0..1) onto pixel `i`.
 * @param {Uint8ClampedArray} data
 * @param {number} i byte offset of the pixel
 * @param {number} r
 * @param {number} g
 * @param {number} b
 * @param {number} alpha
 */
export function blendPixel(data, i, r, g, b, alpha) {
  if (alpha <= 0) return;
  const da = data[i + 3];
  if (da === 255 || alpha >= 1) {
    // Onto an opaque pixel (or with an opaque colour) the alpha stays and colours mix.
    const keep = 1 - alpha;
    data[i] = Math.round(r * alpha + data[i] * keep);
    data[i + 1] = Math.round(g * alpha + data[i + 1] * keep);
    data[i + 2] = Math.round(b * alpha + data[i + 2] * keep);
    data[i + 3] = alpha >= 1 ? 255 : da;
    return;
  }
  const below = (da / 255) * (1 - alpha);
  const out = alpha + below;
  data[i] = Math.round((r * alpha + data[i] * below) / out);
  data[i + 1] = Math.round((g * alpha + data[i + 1] * below) / out);
  data[i + 2] = Math.round((b * alpha + data[i + 2] * below) / out);
  data[i + 3] = Math.round(out * 255);
}

/**
 * Draws a filled rounded rectangle (a circle is one whose radius is half its side).
 * @param {Rgba} image
 * @param {RoundRect} shape
 * @param {Rgba8} color
 */
export function fillRoundRect(image, shape, color) {
  const [r, g, b, a] = color;
  const { x0, y0, x1, y1 } = pixelBounds(image, shape, 1);
  const data = image.data;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const cover = coverageOf(x, y, shape);
      if (cover > 0) blendPixel(data, (y * image.width + x) * 4, r, g, b, (cover * a) / 255);
    }
  }
}

/**
 * A shape's box grown by `margin`, in whole pixels inside the image.
 * @param {{ width: number, height: number }} image
 * @param {Rect} rect
 * @param {number} margin
 */
export function pixelBounds(image, rect, margin) {
  return {
    x0: Math.max(0, Math.floor(rect.x - margin)),
    y0: Math.max(0, Math.floor(rect.y - margin)),
    x1: Math.min(image.width, Math.ceil(rect.x + rect.width + margin)),
    y1: Math.min(image.height, Math.ceil(rect.y + rect.height + margin)),
  };
}

/**
 * A smooth step from 1 to 0 as the distance goes from -spread to +spread: the blur of an edge.
 * The quintic smootherstep stands in for the Gaussian's integral (within 2% of it everywhere)
 * with plain arithmetic.
 * @param {number} distance
 * @param {number} spread
 */
function falloff(distance, spread) {
  if (spread <= 0) return distance < 0 ? 1 : 0;
  const t = (spread - distance) / (2 * spread);
  if (t <= 0) return 0;
  if (t >= 1) return 1;
  return t * t * t * (t * (t * 6 - 15) + 10);
}

/**
 * A soft shadow of some shapes, drawn only where they will not cover (nothing shows through a
 * transparent capture), the darkest of the shapes' shadows at each pixel.
 * @param {Rgba} image
 * @param {RoundRect[]} shapes what casts the shadow
 * @param {{ blur: number, offsetY: number, color: Rgba8 }} shadow blur: the edge's spread in px
 */
export function drawShadow(image, shapes, shadow) {
  const { blur, offsetY, color } = shadow;
  if (blur <= 0 || shapes.length === 0) return;
  const [r, g, b, a] = color;
  const cast = shapes.map((s) => ({ ...s, y: s.y + offsetY, radius: s.radius + blur / 2 }));
  const box = cast.map((s) => pixelBounds(image, s, blur)).reduce((u, v) => ({
    x0: Math.min(u.x0, v.x0),
    y0: Math.min(u.y0, v.y0),
    x1: Math.max(u.x1, v.x1),
    y1: Math.max(u.y1, v.y1),
  }));
  const data = image.data;
  const width = image.width;
  for (let y = box.y0; y < box.y1; y++) {
    // The pixels a shape covers whole on this row get no shadow: skipped without a look.
    const [skipFrom, skipTo] = coveredSpan(shapes, y);
    for (let x = box.x0; x < box.x1; x++) {
      if (x === skipFrom) {
        x = skipTo - 1;
        continue;
      }
      let strength = 0;
      for (let k = 0; k < cast.length; k++) {
        const v = falloff(roundRectDistance(x + 0.5, y + 0.5, cast[k]), blur);
        if (v > strength) strength = v;
      }
      if (strength <= 0) continue;
      let hidden = 0;
      for (let k = 0; k < shapes.length; k++) {
        const c = coverageOf(x, y, shapes[k]);
        if (c > hidden) hidden = c;
      }
      const alpha = (strength * (1 - hidden) * a) / 255;
      if (alpha > 0) blendPixel(data, (y * width + x) * 4, r, g, b, alpha);
    }
  }
}

/**
 * The widest run of whole pixels of row `y` that one of the shapes covers completely (away from
 * its rounded corners), as [from, to); [-1, -1] when none.
 * @param {RoundRect[]} shapes
 * @param {number} y
 * @returns {[number, number]}
 */
function coveredSpan(shapes, y) {
  let best = /** @type {[number, number]} */ ([-1, -1]);
  for (const s of shapes) {
    const radius = Math.min(s.radius, s.width / 2, s.height / 2);
    if (y < Math.ceil(s.y + radius) || y > Math.floor(s.y + s.height - radius - 1)) continue;
    const from = Math.ceil(s.x), to = Math.floor(s.x + s.width - 1);
    if (to - from > best[1] - best[0]) best = [from, to];
  }
  return best;
}

/**
 * The weights of an area (box) resampling from `from` source pixels to `to` target pixels: for
 * each target pixel, its first source pixel and the share of each one it covers. Enlarging uses
 * linear interpolation between pixel centres instead.
 * @param {number} from
 * @param {number} to
 * @returns {{ start: Int32Array, count: Int32Array, weights: Float64Array, taps: number }}
 */
function resampleWeights(from, to) {
  const enlarge = to > from;
  const ratio = from / to;
  const taps = enlarge ? 2 : Math.ceil(ratio) + 1;
  const start = new Int32Array(to);
  const count = new Int32Array(to);
  const weights = new Float64Array(to * taps);
  for (let i = 0; i < to; i++) {
    if (enlarge) {
      const centre = (i + 0.5) * ratio - 0.5;
      const left = Math.max(0, Math.min(from - 1, Math.floor(centre)));
      const right = Math.min(from - 1, left + 1);
      const f = Math.max(0, Math.min(1, centre - left));
      start[i] = left;
      count[i] = right > left ? 2 : 1;
      weights[i * taps] = right > left ? 1 - f : 1;
      if (right > left) weights[i * taps + 1] = f;
      continue;
    }
    const lo = i * ratio, hi = (i + 1) * ratio;
    const first = Math.floor(lo);
    const last = Math.min(from, Math.ceil(hi));
    start[i] = first;
    count[i] = last - first;
    for (let s = first; s < last; s++) {
      const cover = Math.min(hi, s + 1) - Math.max(lo, s);
      weights[i * taps + (s - first)] = cover / ratio;
    }
  }
  return { start, count, weights, taps };
}

/**
 * A rectangle of `source` resampled to `width` x `height` (premultiplied while averaging, so a
 * transparent pixel's hidden colour never bleeds).
 * @param {Rgba} source
 * @param {Rect} crop whole pixels inside source
 * @param {number} width
 * @param {number} height
 * @returns {Rgba}
 */
export function resample(source, crop, width, height) {
  const { x: cx, y: cy, width: cw, height: ch } = crop;
  const src = source.data;
  const out = createImage(width, height);
  if (cw === width && ch === height) {
    for (let y = 0; y < height; y++) {
      const from = ((cy + y) * source.width + cx) * 4;
      out.data.set(src.subarray(from, from + width * 4), y * width * 4);
    }
    return out;
  }
  if (opaque(source, crop)) return resampleOpaque(source, crop, width, height);
  // Rows first (to the new width), then columns, in premultiplied floats.
  const across = resampleWeights(cw, width);
  const hStart = across.start, hCount = across.count, hWeights = across.weights;
  const hTaps = across.taps;
  const mid = new Float32Array(width * ch * 4);
  const stride = source.width * 4;
  for (let y = 0; y < ch; y++) {
    const row = (cy + y) * stride + cx * 4;
    let o = y * width * 4;
    for (let x = 0; x < width; x++, o += 4) {
      let r = 0, g = 0, b = 0, a = 0;
      let i = row + hStart[x] * 4;
      const w0 = x * hTaps, count = hCount[x];
      for (let k = 0; k < count; k++, i += 4) {
        const wa = hWeights[w0 + k] * src[i + 3];
        r += src[i] * wa;
        g += src[i + 1] * wa;
        b += src[i + 2] * wa;
        a += wa;
      }
      mid[o] = r;
      mid[o + 1] = g;
      mid[o + 2] = b;
      mid[o + 3] = a;
    }
  }
  const down = resampleWeights(ch, height);
  const vStart = down.start, vCount = down.count, vWeights = down.weights, vTaps = down.taps;
  const data = out.data;
  const line = width * 4;
  for (let y = 0; y < height; y++) {
    const first = vStart[y] * line, count = vCount[y], w0 = y * vTaps;
    let o = y * line;
    for (let x = 0; x < line; x += 4, o += 4) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let k = 0, i = first + x; k < count; k++, i += line) {
        const w = vWeights[w0 + k];
        r += mid[i] * w;
        g += mid[i + 1] * w;
        b += mid[i + 2] * w;
        a += mid[i + 3] * w;
      }
      if (a <= 0) continue;
      data[o] = Math.round(r / a);
      data[o + 1] = Math.round(g / a);
      data[o + 2] = Math.round(b / a);
      data[o + 3] = Math.round(a);
    }
  }
  return out;
}

/**
 * Whether every pixel of a rectangle of `image` is opaque (a capture almost always is).
 * @param {Rgba} image
 * @param {Rect} rect
 */
function opaque(image, rect) {
  const data = image.data;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const end = ((y * image.width) + rect.x + rect.width) * 4;
    for (let i = ((y * image.width) + rect.x) * 4 + 3; i < end; i += 4) {
      if (data[i] !== 255) return false;
    }
  }
  return true;
}

/**
 * resample() of an opaque rectangle: no alpha to weigh the colours by, so plain weighted sums.
 * @param {Rgba} source
 * @param {Rect} crop
 * @param {number} width
 * @param {number} height
 * @returns {Rgba}
 */
function resampleOpaque(source, crop, width, height) {
  const { x: cx, y: cy, width: cw, height: ch } = crop;
  const src = source.data;
  const across = resampleWeights(cw, width);
  const hStart = across.start, hCount = across.count, hWeights = across.weights;
  const hTaps = across.taps;
  const mid = new Float32Array(width * ch * 3);
  const stride = source.width * 4;
  for (let y = 0; y < ch; y++) {
    const row = (cy + y) * stride + cx * 4;
    let o = y * width * 3;
    for (let x = 0; x < width; x++, o += 3) {
      let r = 0, g = 0, b = 0;
      let i = row + hStart[x] * 4;
      const w0 = x * hTaps, count = hCount[x];
      for (let k = 0; k < count; k++, i += 4) {
        const w = hWeights[w0 + k];
        r += src[i] * w;
        g += src[i + 1] * w;
        b += src[i + 2] * w;
      }
      mid[o] = r;
      mid[o + 1] = g;
      mid[o + 2] = b;
    }
  }
  const down = resampleWeights(ch, height);
  const vStart = down.start, vCount = down.count, vWeights = down.weights, vTaps = down.taps;
  const out = createImage(width, height);
  const data = out.data;
  const line = width * 3;
  for (let y = 0; y < height; y++) {
    const first = vStart[y] * line, count = vCount[y], w0 = y * vTaps;
    let o = y * width * 4;
    for (let x = 0; x < line; x += 3, o += 4) {
      let r = 0, g = 0, b = 0;
      for (let k = 0, i = first + x; k < count; k++, i += line) {
        const w = vWeights[w0 + k];
        r += mid[i] * w;
        g += mid[i + 1] * w;
        b += mid[i + 2] * w;
      }
      // The clamped array rounds half to even; Math.round keeps both paths' rounding alike.
      data[o] = Math.round(r);
      data[o + 1] = Math.round(g);
      data[o + 2] = Math.round(b);
      data[o + 3] = 255;
    }
  }
  return out;
}

/**
 * Draws `picture` with its top-left at whole pixel (x, y), source-over, inside an optional
 * rounded clip, its alpha times `fade(y)` where given.
 * @param {Rgba} image
 * @param {Rgba} picture
 * @param {number} x
 * @param {number} y
 * @param {{ clip?: RoundRect, fade?: (row: number) => number }} [options]
 */
export function drawPicture(image, picture, x, y, options = {}) {
  const { clip, fade } = options;
  const data = image.data, src = picture.data;
  const x0 = Math.max(0, x), y0 = Math.max(0, y);
  const x1 = Math.min(image.width, x + picture.width);
  const y1 = Math.min(image.height, y + picture.height);
  // Only pixels near the clip's corners need their coverage worked out.
  const corner = clip ? Math.min(clip.radius, clip.width / 2, clip.height / 2) + 1 : 0;
  for (let py = y0; py < y1; py++) {
    const rowFade = fade ? fade(py) : 1;
    if (rowFade <= 0) continue;
    const nearTopOrBottom = clip !== undefined &&
      (py < clip.y + corner || py >= clip.y + clip.height - corner);
    for (let px = x0; px < x1; px++) {
      const s = ((py - y) * picture.width + (px - x)) * 4;
      let alpha = (src[s + 3] / 255) * rowFade;
      if (clip) {
        const edge = px < clip.x + corner || px >= clip.x + clip.width - corner ||
          nearTopOrBottom || py < clip.y + 1 || py >= clip.y + clip.height - 1;
        if (edge) alpha *= coverageOf(px, py, clip);
      }
      if (alpha <= 0) continue;
      const o = (py * image.width + px) * 4;
      if (alpha >= 1) {
        data[o] = src[s];
        data[o + 1] = src[s + 1];
        data[o + 2] = src[s + 2];
        data[o + 3] = 255;
      } else {
        blendPixel(data, o, src[s], src[s + 1], src[s + 2], alpha);
      }
    }
  }
}

/**
 * Paints a coverage mask (text) in one colour, optionally only inside `clip`.
 * @param {Rgba} image
 * @param {Mask} mask
 * @param {Rgba8} color
 * @param {Rect} [clip]
 */
export function paintMask(image, mask, color, clip) {
  const [r, g, b, a] = color;
  const data = image.data;
  const left = Math.max(0, mask.x, clip ? Math.ceil(clip.x) : 0);
  const top = Math.max(0, mask.y, clip ? Math.ceil(clip.y) : 0);
  const right = Math.min(image.width, mask.x + mask.width, clip ? clip.x + clip.width : Infinity);
  const bottom = Math.min(
    image.height,
    mask.y + mask.height,
    clip ? clip.y + clip.height : Infinity,
  );
  for (let y = top; y < bottom; y++) {
    for (let x = left; x < right; x++) {
      const cover = mask.coverage[(y - mask.y) * mask.width + (x - mask.x)];
      if (cover === 0) continue;
      blendPixel(data, (y * image.width + x) * 4, r, g, b, (cover * a) / (255 * 255));
    }
  }
}

/**
 * The bottom `rows` rows faded into the background (or to transparent): how a capture cut at
 * the image's bottom edge ends.
 * @param {Rgba} image
 * @param {Background} background
 * @param {number} rows
 */
export function fadeBottom(image, background, rows) {
  const { width, height, data } = image;
  const colour = backgroundAt(background, width, height);
  const first = Math.max(0, height - rows);
  for (let y = first; y < height; y++) {
    // 1 at the first faded row, 0 at the last: the edge itself is pure background.
    const keep = (height - 1 - y) / rows;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (!colour) {
        data[i + 3] = Math.round(data[i + 3] * keep);
        continue;
      }
      const [r, g, b] = colour(x, y);
      data[i] = Math.round(r + (data[i] - r) * keep);
      data[i + 1] = Math.round(g + (data[i + 1] - g) * keep);
      data[i + 2] = Math.round(b + (data[i + 2] - b) * keep);
      data[i + 3] = 255;
    }
  }
}
