// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// The frame: whatever is being framed (capture, post card or own image) drawn on the visible
// canvas by the service's own renderer (lib/frame/render.js, served beside the editor), so the
// editor's export and the API's answer for the same fields are the same picture.
import { minimalFields, resolveDesign } from "../frame/design.js";
import { fontStack, loadFont } from "../frame/font.js";
import { barStyleOf } from "../frame/layout.js";
import { renderFrame } from "../frame/render.js";
import { frameFields, refreshFrameControls } from "./frame_form.js";
import { pngFileOf } from "./png_file.js";
import { refreshControls, request } from "./status.js";
import { byId, context2d } from "./shared.js";

/** @typedef {ImageBitmap | HTMLCanvasElement} Drawable */
/** @typedef {import("../frame/raster.js").Rgba} Rgba */
/** @typedef {import("../frame/render.js").BarPage} BarPage */
/** @typedef {import("../frame/font.js").FontStack} FontStack */

const els = {
  stage: byId("stage", HTMLElement),
  empty: byId("empty", HTMLElement),
  canvas: byId("canvas", HTMLCanvasElement),
  preview: byId("drop-zone", HTMLElement),
  frameForm: byId("frame-form", HTMLFormElement),
  exportResult: byId("export-result", HTMLElement),
};

// Taller than this (height over width), the preview keeps a readable width and scrolls instead
// of shrinking a full-page capture to a sliver.
const TALL_RATIO = 2.5;

/**
 * What is being framed: its pixels, a name for the download, its pixels per CSS pixel (a
 * capture at scale 2 has twice the pixels of the page it shows), the bar's page (a capture's;
 * null for a card or an own image) and, for a capture, the body that asked for it.
 * @type {{ pixels: Rgba, name: string, pixelRatio: number, page: BarPage | null,
 *   capture: Record<string, unknown> | null } | null}
 */
let source = null;

/** The source's name for file names, or null while there is nothing to frame. */
export const sourceName = () => source?.name ?? null;

/** The capture request behind the source, or null for a post card or an own image. */
export const sourceCapture = () => source?.capture ?? null;

/**
 * A bitmap or canvas as straight RGBA pixels (what the renderer reads).
 * @param {Drawable | HTMLImageElement} image
 * @param {number} width
 * @param {number} height
 * @returns {Rgba}
 */
function pixelsOf(image, width, height) {
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const ctx = context2d(canvas, { willReadFrequently: true });
  ctx.drawImage(image, 0, 0, width, height);
  const { data } = ctx.getImageData(0, 0, width, height);
  return { width, height, data };
}

/**
 * Frames `image` from now on and shows it.
 * @param {Drawable} image
 * @param {string} name used in the download's file name
 * @param {{ pixelRatio?: number, page?: BarPage | null,
 *   capture?: Record<string, unknown> | null }} [about] a capture's scale, its bar's page and
 *   the body that asked for it
 */
export function setSource(image, name, about = {}) {
  source = {
    pixels: pixelsOf(image, image.width, image.height),
    name,
    pixelRatio: about.pixelRatio ?? 1,
    page: about.page ?? null,
    capture: about.capture ?? null,
  };
  els.empty.hidden = true;
  els.canvas.hidden = false;
  els.exportResult.textContent = "";
  scheduleRender();
  refreshControls();
  // On a phone the preview sits below the forms: bring it into view.
  if (matchMedia("(max-width: 52rem)").matches) els.stage.scrollIntoView({ block: "start" });
}

/** @type {Promise<FontStack> | null} */
let fonts = null;

/**
 * The bar's fonts, fetched from this origin once, when a bar first shows text (the page lists
 * them on the canvas; the served folder holds them beside the renderer).
 */
function frameFonts() {
  fonts ??= Promise.all(
    (els.canvas.dataset.fonts ?? "").split(" ").filter(Boolean).map(async (url) => {
      const res = await request(url);
      return loadFont(new Uint8Array(await res.arrayBuffer()));
    }),
  ).then(fontStack);
  return fonts;
}

let pending = 0;
let drawing = Promise.resolve();
/** The pixels last drawn on the canvas, straight from the renderer (export and copy use them). */
/** @type {Rgba | null} */
let drawn = null;

/**
 * Redraws on the next animation frame: a burst of input events gives one render. The canvas
 * carries `data-pending` until the last asked render is on it (tests and tools wait for that).
 */
export function scheduleRender() {
  refreshFrameControls();
  els.canvas.dataset.pending = "";
  if (pending) return;
  pending = requestAnimationFrame(startRender);
}

function startRender() {
  pending = 0;
  // Renders run one after another, so a slow font load cannot land an older design last.
  drawing = drawing.then(render, render).finally(() => {
    if (!pending) delete els.canvas.dataset.pending;
  });
}

/** Draws the source on the visible canvas with the form's design. */
async function render() {
  if (!source) return;
  const fields = frameFields();
  const design = resolveDesign(fields);
  const current = source;
  const withText = barStyleOf(design) !== false && current.page !== null;
  const stack = withText ? await frameFonts() : null;
  const framed = renderFrame(current.pixels, design, {
    pixelRatio: current.pixelRatio,
    page: current.page,
    fonts: stack,
  });
  const { image } = framed;
  const canvas = els.canvas;
  canvas.width = image.width;
  canvas.height = image.height;
  // The renderer allocates its own ArrayBuffer (never a shared one).
  const data = /** @type {Uint8ClampedArray<ArrayBuffer>} */ (image.data);
  context2d(canvas).putImageData(new ImageData(data, image.width, image.height), 0, 0);
  drawn = image;
  // Shown at its size in CSS pixels (sharper, not bigger) or, at a social size, at that size;
  // export keeps every pixel.
  const cssWidth = design.size ? image.width : image.width / current.pixelRatio;
  canvas.style.setProperty("--css-width", `${cssWidth}px`);
  const tall = canvas.height > TALL_RATIO * canvas.width;
  els.preview.classList.toggle("tall", tall);
  // A scrolling preview must be reachable with Tab to be scrolled from the keyboard.
  if (tall) els.preview.tabIndex = 0;
  else els.preview.removeAttribute("tabindex");
  // What the canvas shows, for tests and tools that wait for a design to be drawn.
  canvas.dataset.design = JSON.stringify(minimalFields(fields));
}

/**
 * A data: URL image (a page's icon) as pixels at its own size, or null when it cannot be read.
 * @param {string} dataUrl
 * @returns {Promise<Rgba | null>}
 */
async function decodeIcon(dataUrl) {
  const img = new Image();
  img.src = dataUrl;
  try {
    await img.decode();
  } catch {
    return null;
  }
  // An SVG without its own size reports none; 32 px is what an icon's viewBox usually holds.
  const width = img.naturalWidth || 32;
  const height = img.naturalHeight || 32;
  return pixelsOf(img, width, height);
}

/**
 * The browser bar's page of a capture answer, built as the service builds it: the title (else
 * the host), the theme colour and the icon. The icon comes from the answer itself
 * (`page.faviconData`, the icon's bytes as a data: URL that the service loaded with the
 * capture), so drawing it leaves the canvas readable. The editor never fetches anything from
 * the captured site.
 * @param {{ url: string, page?: { title?: string | null, themeColor?: string | null,
 *   faviconData?: string | null } | null }} shot
 * @returns {Promise<BarPage>}
 */
export async function barPageOf(shot) {
  let host = "";
  if (shot.url.startsWith("http")) {
    try {
      host = new URL(shot.url).hostname;
    } catch {
      host = "";
    }
  }
  const page = shot.page;
  const data = page?.faviconData;
  return {
    title: page?.title?.trim() || host || "Untitled",
    host: host || "html",
    themeColor: page?.themeColor ?? null,
    icon: data?.startsWith("data:image/") ? await decodeIcon(data) : null,
  };
}

/** The framed picture as PNG bytes (what export and copy start from). */
export async function framedPng() {
  // A change still waiting for its animation frame is drawn now: export what the form says.
  if (pending) {
    cancelAnimationFrame(pending);
    startRender();
  }
  await drawing;
  if (!drawn) throw new Error("Nothing is framed yet.");
  const png = await pngFileOf(drawn);
  return { png, width: drawn.width, height: drawn.height };
}

els.frameForm.addEventListener("input", scheduleRender);
els.frameForm.addEventListener("change", scheduleRender);
els.frameForm.addEventListener("submit", (event) => event.preventDefault());
