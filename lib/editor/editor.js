// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// Shotline editor: capture a page, draw a post card or bring your own image, frame it on a
// canvas, export or copy it. Plain ES modules, no build step; every request stays on this
// origin (CSP connect-src 'self'). Type-checked against the DOM by `deno task check`.
import "./api_request.js";
import { drawPostCard } from "./card.js";
import { captureBody } from "./capture_form.js";
import "./downloads.js";
import { barPageOf, framedPng, scheduleRender, setSource, sourceName } from "./frame.js";
import { applyFrameFields, designOfHash } from "./frame_form.js";
import "./own_image.js";
import { parsePostRef } from "./post.js";
import { rememberSettings } from "./settings.js";
import { byId, formatBytes } from "./shared.js";
import {
  ApiFailure,
  captureAllowed,
  clearError,
  lockWhileBusy,
  request,
  showError,
  withProgress,
} from "./status.js";

const els = {
  captureForm: byId("capture-form", HTMLFormElement),
  captureSubmit: byId("capture-submit", HTMLButtonElement),
  postForm: byId("post-form", HTMLFormElement),
  postSubmit: byId("post-submit", HTMLButtonElement),
  exportForm: byId("export-form", HTMLFormElement),
  exportSubmit: byId("export-submit", HTMLButtonElement),
  copy: byId("copy-image", HTMLButtonElement),
  exportResult: byId("export-result", HTMLElement),
  exportLink: byId("export-link", HTMLAnchorElement),
};

// ---------- capture ----------

/**
 * @param {string} base64
 * @param {string} type
 */
function base64ToBlob(base64, type) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Blob([bytes], { type });
}

/**
 * The capture's pixels per CSS pixel: the chosen scale, else the named device's own ratio.
 * @param {Record<string, unknown>} options
 */
function pixelRatio(options) {
  if (typeof options.scale === "number") return options.scale;
  const select = /** @type {HTMLSelectElement | null} */ (
    document.getElementById("capture-device")
  );
  return Number(select?.selectedOptions[0]?.dataset.scale || 1);
}

els.captureForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const body = captureBody(new FormData(els.captureForm));
  const scale = pixelRatio(body);
  withProgress(`Capturing ${body.url}`, async (signal) => {
    const res = await request("/api/screenshot", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    const shot = await res.json();
    // The PNG's own pixels, untouched by colour management: the service frames those.
    const bitmap = await createImageBitmap(base64ToBlob(shot.screenshot, "image/png"), {
      colorSpaceConversion: "none",
      premultiplyAlpha: "none",
    });
    signal.throwIfAborted();
    const page = await barPageOf(shot);
    signal.throwIfAborted();
    setSource(bitmap, new URL(shot.url).hostname, { pixelRatio: scale, page, capture: body });
    const origin = shot.cached ? "from the cache" : "fresh";
    const cut = shot.truncated ? ", cut at the size limit" : "";
    return `Captured ${shot.url} (${bitmap.width}×${bitmap.height}, ${origin}${cut}).`;
  });
});

// Ctrl+Enter (Cmd+Enter on a Mac) submits the form being typed in, and a capture elsewhere.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.defaultPrevented) return;
  event.preventDefault();
  const inPost = event.target instanceof Node && els.postForm.contains(event.target);
  (inPost ? els.postForm : els.captureForm).requestSubmit();
});

// ---------- post card ----------

els.postForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const form = new FormData(els.postForm);
  const id = parsePostRef(String(form.get("post")));
  if (!id) {
    clearError();
    showError(
      new ApiFailure({
        error: "That is not a post id or a post URL.",
        hint: "Paste a link like https://x.com/user/status/1234567890, or just the number.",
      }, 0),
    );
    return;
  }
  withProgress(`Loading post ${id}`, async (signal) => {
    const res = await request(`/api/post/${id}`, { signal });
    const { data } = await res.json();
    const card = await drawPostCard(data, String(form.get("cardTheme")));
    signal.throwIfAborted();
    setSource(card, `post-${id}`);
    const handle = data.user?.screen_name ? ` by @${data.user.screen_name}` : "";
    return `Post ${id}${handle} drawn.`;
  });
});

// ---------- export and copy ----------

/** @type {Record<string, string>} */
const EXTENSIONS = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };

/** @param {Date} date */
function timestamp(date) {
  /** @param {number} n */
  const two = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}${two(date.getMonth() + 1)}${two(date.getDate())}-` +
    `${two(date.getHours())}${two(date.getMinutes())}${two(date.getSeconds())}`;
}

els.exportForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const base = sourceName();
  if (!base) return;
  const form = new FormData(els.exportForm);
  const format = String(form.get("format"));
  withProgress(`Exporting ${format.toUpperCase()}`, async (signal) => {
    const { png, width, height } = await framedPng();
    const upload = new FormData();
    upload.append("image", png, "canvas.png");
    upload.append("format", format);
    upload.append("qualityPreset", String(form.get("qualityPreset")));
    const res = await request("/api/export", { method: "POST", body: upload, signal });
    const blob = await res.blob();
    signal.throwIfAborted();
    const ext = EXTENSIONS[blob.type] ?? format;
    const name = `shotline-${base}-${timestamp(new Date())}.${ext}`;
    const link = els.exportLink;
    if (link.href) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(blob);
    link.download = name;
    link.textContent = `Download ${name} again`;
    link.hidden = false;
    link.click();
    els.exportResult.textContent = `${name}: ${formatBytes(blob.size)} ` +
      `(canvas PNG ${formatBytes(png.size)}, ${width}×${height}).`;
    return `Exported ${name} (${formatBytes(blob.size)}).`;
  });
});

els.copy.addEventListener("click", () => {
  if (!navigator.clipboard?.write || typeof ClipboardItem === "undefined") {
    showError(
      new ApiFailure({
        error: "This browser cannot copy images to the clipboard.",
        hint: "Use Export and download instead.",
      }, 0),
    );
    return;
  }
  withProgress("Copying the image", async () => {
    // The item is handed over at once with a promise of its bytes: Safari only allows a
    // clipboard write that starts within the click itself.
    const framed = framedPng();
    // A failure here also fails the write below, which reports it.
    framed.catch(() => {});
    const png = framed.then((result) => result.png);
    try {
      await navigator.clipboard.write([new ClipboardItem({ "image/png": png })]);
    } catch (error) {
      if (!(error instanceof DOMException && error.name === "NotAllowedError")) throw error;
      throw new ApiFailure({
        error: "The browser did not allow copying to the clipboard.",
        hint: "Allow clipboard access for this site, or use Export and download.",
      }, 0);
    }
    const { width, height } = await framed;
    return `Copied the framed image to the clipboard (PNG, ${width}×${height}).`;
  });
});

// ---------- start ----------

lockWhileBusy(els.captureSubmit, captureAllowed);
lockWhileBusy(els.postSubmit);
lockWhileBusy(els.exportSubmit, () => sourceName() !== null);
lockWhileBusy(els.copy, () => sourceName() !== null);

// Pre-select the viewer's own colour scheme for captures and cards; remembered settings win.
if (matchMedia("(prefers-color-scheme: dark)").matches) {
  byId("colorScheme-dark", HTMLInputElement).checked = true;
  byId("cardTheme-dark", HTMLInputElement).checked = true;
}
rememberSettings();
// A link's design wins over the remembered one.
applyFrameFields(designOfHash(location.hash));
addEventListener("hashchange", () => {
  applyFrameFields(designOfHash(location.hash));
  scheduleRender();
});
scheduleRender();
