// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// The frame: whatever is being framed (capture, post card or own image) drawn on the visible
// canvas with background, padding, rounded corners and shadow.
import { refreshControls } from "./status.js";
import { byId, context2d } from "./shared.js";

/** @typedef {ImageBitmap | HTMLCanvasElement} Drawable */

const els = {
  stage: byId("stage", HTMLElement),
  empty: byId("empty", HTMLElement),
  canvas: byId("canvas", HTMLCanvasElement),
  preview: byId("drop-zone", HTMLElement),
  frameForm: byId("frame-form", HTMLFormElement),
  exportResult: byId("export-result", HTMLElement),
};
const inputs = {
  background: byId("background", HTMLSelectElement),
  from: byId("color-from", HTMLInputElement),
  to: byId("color-to", HTMLInputElement),
  padding: byId("padding", HTMLInputElement),
  radius: byId("radius", HTMLInputElement),
  shadow: byId("shadow", HTMLInputElement),
};
const outputs = {
  padding: byId("padding-out", HTMLOutputElement),
  radius: byId("radius-out", HTMLOutputElement),
  shadow: byId("shadow-out", HTMLOutputElement),
};

// Taller than this (height over width), the preview keeps a readable width and scrolls instead
// of shrinking a full-page capture to a sliver.
const TALL_RATIO = 2.5;

/**
 * What is being framed: a bitmap or canvas, a name for the download, and its pixels per CSS
 * pixel (a capture at scale 2 has twice the pixels of the page it shows).
 * @type {{ image: Drawable, name: string, scale: number } | null}
 */
let source = null;

/** The source's name for file names, or null while there is nothing to frame. */
export const sourceName = () => source?.name ?? null;

// Read from the elements, not FormData: a disabled colour input is left out of FormData.
function frameSettings() {
  /** @param {keyof typeof inputs} name */
  const value = (name) => inputs[name].value;
  return {
    background: value("background"),
    from: value("from"),
    to: value("to"),
    padding: Number(value("padding")),
    radius: Number(value("radius")),
    shadow: Number(value("shadow")),
  };
}

/**
 * Frames `image` from now on and shows it.
 * @param {Drawable} image
 * @param {string} name used in the download's file name
 * @param {number} [scale] pixels per CSS pixel of `image` (a capture's `scale`)
 */
export function setSource(image, name, scale = 1) {
  source = { image, name, scale };
  els.empty.hidden = true;
  els.canvas.hidden = false;
  els.exportResult.textContent = "";
  render();
  refreshControls();
  // On a phone the preview sits below the forms: bring it into view.
  if (matchMedia("(max-width: 52rem)").matches) els.stage.scrollIntoView({ block: "start" });
}

/** Draws the source on the visible canvas with background, padding, corners and shadow. */
export function render() {
  const settings = frameSettings();
  for (const key of /** @type {const} */ (["padding", "radius", "shadow"])) {
    outputs[key].textContent = String(settings[key]);
  }
  inputs.to.disabled = settings.background !== "gradient";
  inputs.from.disabled = settings.background === "none";
  if (!source) return;
  const { width: w, height: h } = source.image;
  const scale = source.scale;
  // Sliders are in units of a 1000 CSS px wide image, so the look depends neither on capture
  // size nor on scale: a 2x capture is framed like the 1x one, in twice the pixels.
  const unit = (Math.max(w / scale, 600) * scale) / 1000;
  const pad = Math.round((w * settings.padding) / 100);
  const radius = Math.min(settings.radius * unit, w / 2, h / 2);
  const blur = settings.shadow * unit;
  const canvas = els.canvas;
  canvas.width = w + 2 * pad;
  canvas.height = h + 2 * pad;
  // Shown at its size in CSS pixels (sharper, not bigger); export keeps every pixel.
  canvas.style.setProperty("--css-width", `${canvas.width / scale}px`);
  const tall = canvas.height > TALL_RATIO * canvas.width;
  els.preview.classList.toggle("tall", tall);
  // A scrolling preview must be reachable with Tab to be scrolled from the keyboard.
  if (tall) els.preview.tabIndex = 0;
  else els.preview.removeAttribute("tabindex");
  const ctx = context2d(canvas);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (settings.background === "gradient") {
    const gradient = ctx.createLinearGradient(0, 0, canvas.width, canvas.height);
    gradient.addColorStop(0, settings.from);
    gradient.addColorStop(1, settings.to);
    ctx.fillStyle = gradient;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
  } else if (settings.background === "solid") {
    ctx.fillStyle = settings.from;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
  }
  if (blur > 0) {
    // The shape is drawn off-canvas and only its shadow is shifted in: nothing shows through
    // transparent parts of the image.
    const away = canvas.width + 4 * blur;
    ctx.save();
    ctx.shadowColor = "rgba(15, 18, 30, 0.35)";
    ctx.shadowBlur = blur;
    ctx.shadowOffsetX = away;
    ctx.shadowOffsetY = blur / 3;
    ctx.fillStyle = "#000";
    ctx.beginPath();
    ctx.roundRect(pad - away, pad, w, h, radius);
    ctx.fill();
    ctx.restore();
  }
  ctx.save();
  ctx.beginPath();
  ctx.roundRect(pad, pad, w, h, radius);
  ctx.clip();
  ctx.drawImage(source.image, pad, pad);
  ctx.restore();
}

/** The framed canvas as PNG bytes (what export and copy start from). */
export async function framedPng() {
  /** @type {Blob | null} */
  const png = await new Promise((resolve) => els.canvas.toBlob(resolve, "image/png"));
  if (!png) throw new Error("The canvas could not be encoded.");
  return { png, width: els.canvas.width, height: els.canvas.height };
}

els.frameForm.addEventListener("input", render);
els.frameForm.addEventListener("submit", (event) => event.preventDefault());
