// @ts-check
// The frame renderer: a capture (or any image) on a background, with padding, rounded corners,
// a shadow, a browser bar and a device around it, at a social size if asked. The editor and the
// server run this same module, so the editor's export and the API's answer are one picture.
import { barStyleOf, layoutFrame } from "./layout.js";
import {
  createImage,
  drawPicture,
  drawShadow,
  fadeBottom,
  fillBackground,
  fillRoundRect,
  paintMask,
  resample,
} from "./raster.js";
import { layoutText, rasterizeText } from "./text.js";

/** @typedef {import("./raster.js").Rgba} Rgba */
/** @typedef {import("./raster.js").Rgba8} Rgba8 */
/** @typedef {import("./raster.js").Rect} Rect */
/** @typedef {import("./design.js").Design} Design */
/** @typedef {import("./layout.js").FrameLayout} FrameLayout */
/** @typedef {import("./font.js").FontStack} FontStack */
/**
 * What a browser bar shows, from the capture's own answer (`page`): never fetched.
 * @typedef {{ title: string, host: string, themeColor: string | null, icon: Rgba | null }} BarPage
 */
/**
 * @typedef {{
 *   pixelRatio?: number,
 *   page?: BarPage | null,
 *   fonts?: FontStack | null,
 * }} RenderOptions
 * pixelRatio: the capture's pixels per CSS pixel (its `scale`), 1 by default. page: the title
 * bar's contents (a bar without it shows only its buttons). fonts: the bar's text; without them
 * no text is drawn.
 */

const SHADOW_COLOR = /** @type {Rgba8} */ ([15, 18, 30, 115]);
const BAR_STYLES = {
  light: { background: /** @type {Rgba8} */ ([232, 234, 238, 255]) },
  dark: { background: /** @type {Rgba8} */ ([43, 45, 51, 255]) },
};
const TEXT_ON_LIGHT = /** @type {Rgba8} */ ([31, 35, 40, 255]);
const TEXT_ON_DARK = /** @type {Rgba8} */ ([241, 243, 245, 255]);
const INITIAL_ON_LIGHT = /** @type {Rgba8} */ ([93, 100, 112, 255]);
const WINDOW_BUTTONS = /** @type {Rgba8[]} */ ([
  [255, 95, 87, 255],
  [254, 188, 46, 255],
  [40, 200, 64, 255],
]);

/**
 * The frame around `source`: the finished image and where its parts went.
 * @param {Rgba} source
 * @param {Design} design
 * @param {RenderOptions} [options]
 * @returns {{ image: Rgba, layout: FrameLayout }}
 */
export function renderFrame(source, design, options = {}) {
  const pixelRatio = options.pixelRatio ?? 1;
  const layout = layoutFrame(design, { ...source, pixelRatio });
  const image = createImage(layout.width, layout.height);
  fillBackground(image, design.background);
  const { object } = layout;
  /** @param {import("./raster.js").RoundRect} shape */
  const placed = (shape) => ({ ...shape, x: shape.x + object.x, y: shape.y + object.y });
  if (layout.shadow.blur > 0) {
    drawShadow(image, object.casts.map(placed), { ...layout.shadow, color: SHADOW_COLOR });
  }
  for (const part of object.under) fillRoundRect(image, placed(part.shape), part.color);
  const screen = placed(object.screen);
  const picture = resample(source, layout.crop, layout.capture.width, layout.capture.height);
  drawPicture(image, picture, layout.capture.x, layout.capture.y, { clip: screen });
  if (layout.bar) {
    const style = barStyleOf(design) || "auto";
    drawBar(image, layout.bar, screen, style, options.page ?? null, options.fonts ?? null);
  }
  for (const part of object.over) fillRoundRect(image, placed(part.shape), part.color);
  if (layout.fadeRows > 0) fadeBottom(image, design.background, layout.fadeRows);
  return { image, layout };
}

/**
 * The browser bar: window buttons, the page's icon (or its host's initial on a tile) and its
 * title, on the style's colour or, for "auto", the page's theme colour.
 * @param {Rgba} image
 * @param {Rect} box
 * @param {import("./raster.js").RoundRect} clip the window's rounded shape
 * @param {"light" | "dark" | "auto"} style
 * @param {BarPage | null} page
 * @param {FontStack | null} fonts
 */
function drawBar(image, box, clip, style, page, fonts) {
  const { x, y, width: w, height: h } = box;
  const themed = style === "auto" && page?.themeColor ? parseCssColor(page.themeColor) : null;
  const background = themed ??
    BAR_STYLES[style === "dark" ? "dark" : "light"].background;
  const dark = luminance(background) < 0.5;
  // The bar's rectangle clipped to the window's top corners.
  drawPicture(image, solid(w, h, background), x, y, { clip });
  const r = h * 0.14;
  WINDOW_BUTTONS.forEach((color, i) => {
    const cx = x + h * 0.5 + i * h * 0.45;
    fillRoundRect(
      image,
      { x: cx - r, y: y + h / 2 - r, width: 2 * r, height: 2 * r, radius: r },
      color,
    );
  });
  if (!page) return;
  const size = Math.round(h * 0.45);
  const iconX = Math.round(x + h * 1.9);
  const iconY = Math.round(y + (h - size) / 2);
  if (page.icon) {
    const icon = resample(page.icon, { x: 0, y: 0, ...dimensions(page.icon) }, size, size);
    drawPicture(image, icon, iconX, iconY);
  } else {
    const tile = { x: iconX, y: iconY, width: size, height: size, radius: size * 0.25 };
    fillRoundRect(image, tile, dark ? [255, 255, 255, 255] : INITIAL_ON_LIGHT);
    if (fonts) {
      const initial = layoutText(fonts, (page.host[0] ?? "?").toUpperCase(), size * 0.7, size);
      const baseline = iconY + size / 2 + (initial.ascent - initial.descent) / 2 -
        initial.ascent * 0.14;
      const mask = rasterizeText(initial, iconX + (size - initial.width) / 2, baseline);
      paintMask(image, mask, background);
    }
  }
  if (!fonts) return;
  const left = iconX + size + h * 0.3;
  const maxWidth = Math.max(0, x + w - left - h * 0.4);
  const run = layoutText(fonts, page.title, h * 0.34, maxWidth);
  if (run.width === 0) return;
  const baseline = y + h / 2 + (run.ascent - run.descent) / 2 - run.ascent * 0.14;
  paintMask(image, rasterizeText(run, left, baseline), dark ? TEXT_ON_DARK : TEXT_ON_LIGHT, box);
}

/**
 * @param {Rgba} image
 */
function dimensions(image) {
  return { width: image.width, height: image.height };
}

/**
 * An opaque block of one colour.
 * @param {number} width
 * @param {number} height
 * @param {Rgba8} color
 * @returns {Rgba}
 */
function solid(width, height, color) {
  const block = createImage(width, height);
  for (let i = 0; i < block.data.length; i += 4) block.data.set(color, i);
  return block;
}

/**
 * Relative luminance 0..1 of a colour (sRGB weights, no linearisation: a light/dark choice).
 * @param {Rgba8} color
 */
function luminance(color) {
  return (0.2126 * color[0] + 0.7152 * color[1] + 0.0722 * color[2]) / 255;
}

/**
 * A page's theme colour in the forms pages write (#rgb, #rrggbb with or without alpha, rgb() and
 * rgba(), white and black), opaque; null for anything else (the bar then stays neutral).
 * @param {string} text
 * @returns {Rgba8 | null}
 */
export function parseCssColor(text) {
  const value = text.trim().toLowerCase();
  if (value === "white") return [255, 255, 255, 255];
  if (value === "black") return [0, 0, 0, 255];
  const hex = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(value);
  if (hex) {
    const digits = hex[1].length <= 4 ? [...hex[1]].map((d) => d + d).join("") : hex[1];
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16));
    return [r, g, b, 255];
  }
  const fn =
    /^rgba?\(\s*(\d{1,3})\s*[, ]\s*(\d{1,3})\s*[, ]\s*(\d{1,3})\s*(?:[,/]\s*[\d.]+%?\s*)?\)$/
      .exec(value);
  if (fn) {
    const [r, g, b] = [fn[1], fn[2], fn[3]].map(Number);
    if (r <= 255 && g <= 255 && b <= 255) return [r, g, b, 255];
  }
  return null;
}
