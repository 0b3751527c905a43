// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// The frame: whatever is being framed (capture, post card or own image) drawn on the visible
// canvas with background, padding, rounded corners and shadow, and for a capture, when asked, a
// browser bar with the page's title and icon.
import { refreshControls } from "./status.js";
import { byId, context2d } from "./shared.js";

/** @typedef {ImageBitmap | HTMLCanvasElement} Drawable */
/**
 * What a capture's browser bar shows, from the capture's own answer (its `page`).
 * @typedef {{ title: string, host: string, themeColor: string | null,
 *   icon: HTMLImageElement | null }} BrowserBar
 */

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
  browserBar: byId("browser-bar", HTMLInputElement),
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
 * @type {{ image: Drawable, name: string, scale: number, bar: BrowserBar | null } | null}
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
    browserBar: inputs.browserBar.checked,
  };
}

/**
 * Frames `image` from now on and shows it.
 * @param {Drawable} image
 * @param {string} name used in the download's file name
 * @param {number} [scale] pixels per CSS pixel of `image` (a capture's `scale`)
 * @param {BrowserBar | null} [bar] a capture's title bar
 */
export function setSource(image, name, scale = 1, bar = null) {
  source = { image, name, scale, bar };
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
  const { width: w, height: image } = source.image;
  const scale = source.scale;
  // Sliders are in units of a 1000 CSS px wide image, so the look depends neither on capture
  // size nor on scale: a 2x capture is framed like the 1x one, in twice the pixels.
  const unit = (Math.max(w / scale, 600) * scale) / 1000;
  const pad = Math.round((w * settings.padding) / 100);
  // The browser bar sits on top of the image inside the same rounded window.
  const barHeight = settings.browserBar && source.bar ? Math.round(44 * unit) : 0;
  const h = image + barHeight;
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
  ctx.drawImage(source.image, pad, pad + barHeight);
  if (barHeight && source.bar) drawBar(ctx, source.bar, { x: pad, y: pad, w, h: barHeight });
  ctx.restore();
}

const BAR_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/**
 * The browser bar: window buttons, the page's icon (or its host's initial on the theme colour)
 * and its title, on the page's theme colour or a neutral grey.
 * @param {CanvasRenderingContext2D} ctx
 * @param {BrowserBar} bar
 * @param {{ x: number, y: number, w: number, h: number }} box
 */
function drawBar(ctx, bar, box) {
  const { x, y, w, h } = box;
  const background = bar.themeColor ?? "#e8eaee";
  ctx.fillStyle = background;
  ctx.fillRect(x, y, w, h);
  const dark = luminance(ctx, background) < 0.5;
  const r = h * 0.14;
  ["#ff5f57", "#febc2e", "#28c840"].forEach((colour, i) => {
    ctx.fillStyle = colour;
    ctx.beginPath();
    ctx.arc(x + h * 0.5 + i * h * 0.45, y + h / 2, r, 0, 2 * Math.PI);
    ctx.fill();
  });
  const size = Math.round(h * 0.45);
  const iconX = x + h * 1.9;
  const iconY = y + (h - size) / 2;
  if (bar.icon) {
    ctx.drawImage(bar.icon, iconX, iconY, size, size);
  } else {
    ctx.fillStyle = dark ? "#ffffff" : "#5d6470";
    ctx.beginPath();
    ctx.roundRect(iconX, iconY, size, size, size * 0.25);
    ctx.fill();
    ctx.fillStyle = background;
    ctx.font = `600 ${Math.round(size * 0.7)}px ${BAR_FONT}`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText((bar.host[0] ?? "?").toUpperCase(), iconX + size / 2, iconY + size / 2);
  }
  ctx.fillStyle = dark ? "#f1f3f5" : "#1f2328";
  ctx.font = `${Math.round(h * 0.34)}px ${BAR_FONT}`;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  const left = iconX + size + h * 0.3;
  ctx.fillText(bar.title, left, y + h / 2, Math.max(0, x + w - left - h * 0.4));
}

/**
 * The relative luminance (0 to 1) of any CSS colour, read back through the canvas.
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} colour
 */
function luminance(ctx, colour) {
  ctx.save();
  ctx.fillStyle = "#000";
  ctx.fillStyle = colour; // an unparseable colour leaves black
  const hex = String(ctx.fillStyle);
  ctx.restore();
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(hex);
  if (!m) return 1;
  const [r, g, b] = [m[1], m[2], m[3]].map((v) => parseInt(v, 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The browser bar of a capture answer. Its icon comes from the answer itself (`page.faviconData`,
 * the icon's bytes as a data: URL that the service loaded with the capture), so drawing it leaves
 * the canvas readable; without it (no icon, or one the service could not read) the bar shows the
 * host's initial. The editor never fetches anything from the captured site.
 * @param {{ url: string, page?: { title: string | null, themeColor: string | null,
 *   faviconData?: string | null } }} shot
 * @returns {Promise<BrowserBar>}
 */
export async function browserBarOf(shot) {
  const host = shot.url.startsWith("http") ? new URL(shot.url).hostname : "";
  const page = shot.page;
  /** @type {HTMLImageElement | null} */
  let icon = null;
  if (page?.faviconData?.startsWith("data:image/")) {
    const img = new Image();
    img.src = page.faviconData;
    icon = await img.decode().then(() => img, () => null);
  }
  return {
    title: page?.title ?? (host || "Untitled"),
    host: host || "html",
    themeColor: page?.themeColor ?? null,
    icon,
  };
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
