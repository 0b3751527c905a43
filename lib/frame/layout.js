// @ts-check
// Where everything goes: which part of the capture shows (a device's screen or a social size may
// cut it), how much it is scaled, the object around it and the canvas, all in whole output
// pixels.
import { deviceShape, proportionsOf } from "./devices.js";

/** @typedef {import("./design.js").Design} Design */
/** @typedef {import("./raster.js").Rect} Rect */
/** @typedef {import("./devices.js").DeviceShape} DeviceShape */
/**
 * @typedef {{
 *   width: number,
 *   height: number,
 *   scale: number,
 *   crop: Rect,
 *   capture: Rect,
 *   bar: Rect | null,
 *   object: DeviceShape & { x: number, y: number },
 *   fadeRows: number,
 *   shadow: { blur: number, offsetY: number },
 * }} FrameLayout
 * width/height: the canvas. scale: output pixels per capture pixel. crop: the part of the capture
 * shown, in its pixels. capture: where that part lands. bar: the browser bar, if any. object: the
 * window or device, placed. fadeRows: rows at the bottom faded into the background (fit "top").
 */

/** A browser bar's height in CSS pixels. */
export const BAR_CSS_HEIGHT = 40;
/** A shadow's spread (each side of the edge) per point of `shadow`, in CSS pixels. */
const SHADOW_CSS_PER_POINT = 0.8;
/** The part of the image's height that a cut capture fades out over (fit "top"). */
const FADE_SHARE = 0.12;

/**
 * Whether the design puts a browser bar on top of the capture: asked for, or the browser
 * device; never on a phone, whose browser shows no title bar.
 * @param {Design} design
 * @returns {false | "light" | "dark" | "auto"}
 */
export function barStyleOf(design) {
  if (design.device === "phone") return false;
  if (design.device === "browser") return design.browserBar || "auto";
  return design.browserBar;
}

/**
 * The canvas and everything on it for a capture of `width` x `height` pixels at `pixelRatio`
 * pixels per CSS pixel.
 * @param {Design} design
 * @param {{ width: number, height: number, pixelRatio: number }} source
 * @returns {FrameLayout}
 */
export function layoutFrame(design, source) {
  const { pixelRatio } = source;
  const proportions = proportionsOf(design.device);
  const barHeight = barStyleOf(design) ? BAR_CSS_HEIGHT * pixelRatio : 0;
  const landscape = source.width >= source.height;
  const maxAspect = proportions.maxAspect(landscape);
  /**
   * The capture's part shown when the object should have `aspect` (width over height), or the
   * device's longest screen when no aspect is wanted.
   * @param {number | null} aspect
   * @param {boolean} centred
   * @returns {Rect}
   */
  function cropFor(aspect, centred) {
    let w = source.width;
    let h = source.height;
    if (aspect !== null) {
      // object = (w * across, h + w * along + bar): solve for h with the whole width first.
      const wanted = (w * proportions.across) / aspect - w * proportions.along - barHeight;
      if (wanted >= 1 && wanted <= h) {
        h = wanted;
      } else if (wanted > h) {
        const per = proportions.across / aspect - proportions.along;
        if (per > 0) w = Math.min(w, (h + barHeight) / per);
      }
    }
    h = Math.min(h, w * maxAspect);
    const cw = Math.max(1, Math.round(w)), ch = Math.max(1, Math.round(h));
    const x = Math.round((source.width - cw) / 2);
    const y = centred ? Math.round((source.height - ch) / 2) : 0;
    return { x, y, width: cw, height: ch };
  }

  const size = design.size;
  let pad, scale, crop, canvasW = 0, canvasH = 0;
  if (!size) {
    pad = Math.round(design.padding * pixelRatio);
    scale = 1;
    crop = cropFor(null, false);
  } else {
    canvasW = size.width;
    canvasH = size.height;
    pad = Math.min(design.padding, Math.floor((Math.min(canvasW, canvasH) - 2) / 2));
    const availW = canvasW - 2 * pad;
    // "top" runs off the bottom edge by a padding's height: corners and shadow fall outside.
    const availH = design.fit === "top" ? canvasH : canvasH - 2 * pad;
    crop = design.fit === "contain"
      ? cropFor(null, false)
      : cropFor(availW / availH, design.fit === "cover");
    const objectW = crop.width * proportions.across;
    const objectH = crop.height + crop.width * proportions.along + barHeight;
    scale = design.fit === "contain"
      ? Math.min(availW / objectW, availH / objectH)
      : Math.min(availW / objectW, design.fit === "top" ? Infinity : availH / objectH);
  }
  const captureW = Math.max(1, Math.round(crop.width * scale));
  const captureH = Math.max(1, Math.round(crop.height * scale));
  const bar = Math.round(barHeight * scale);
  const radius = Math.round(design.radius * pixelRatio * scale);
  const shape = deviceShape(design.device, captureW, captureH + bar, radius);
  if (!size) {
    canvasW = shape.width + 2 * pad;
    canvasH = shape.height + 2 * pad;
  }
  const x = Math.round((canvasW - shape.width) / 2);
  const y = design.fit === "top" && size ? pad : Math.round((canvasH - shape.height) / 2);
  const screen = shape.screen;
  const blur = design.shadow * SHADOW_CSS_PER_POINT * pixelRatio * scale;
  const cut = size !== null && design.fit === "top" && y + shape.height > canvasH;
  return {
    width: canvasW,
    height: canvasH,
    scale,
    crop,
    capture: { x: x + screen.x, y: y + screen.y + bar, width: captureW, height: captureH },
    bar: bar > 0 ? { x: x + screen.x, y: y + screen.y, width: captureW, height: bar } : null,
    object: { ...shape, x, y },
    fadeRows: cut ? Math.max(1, Math.round(canvasH * FADE_SHARE)) : 0,
    shadow: { blur, offsetY: blur / 3 },
  };
}
