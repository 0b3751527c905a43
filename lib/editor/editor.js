// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// Shotline editor: capture a page or draw a post card, frame it on a canvas, export it.
// Plain ES module, no build step; every request stays on this origin (CSP connect-src 'self').
// Type-checked against the DOM by `deno task check` (JSDoc types, no build step either).

/**
 * The element with `id`, checked to be of the expected kind (the page renders them all).
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} kind
 * @returns {T}
 */
function byId(id, kind) {
  const element = document.getElementById(id);
  if (!(element instanceof kind)) throw new Error(`#${id} is missing from the page`);
  return element;
}

const els = {
  stage: byId("stage", HTMLElement),
  status: byId("status", HTMLElement),
  progress: byId("progress", HTMLProgressElement),
  error: byId("error", HTMLElement),
  errorTitle: byId("error-title", HTMLElement),
  errorHint: byId("error-hint", HTMLElement),
  errorWait: byId("error-wait", HTMLElement),
  empty: byId("empty", HTMLElement),
  canvas: byId("canvas", HTMLCanvasElement),
  captureForm: byId("capture-form", HTMLFormElement),
  captureUrl: byId("capture-url", HTMLInputElement),
  captureSubmit: byId("capture-submit", HTMLButtonElement),
  postForm: byId("post-form", HTMLFormElement),
  postRef: byId("post-ref", HTMLInputElement),
  postSubmit: byId("post-submit", HTMLButtonElement),
  frameForm: byId("frame-form", HTMLFormElement),
  exportForm: byId("export-form", HTMLFormElement),
  exportSubmit: byId("export-submit", HTMLButtonElement),
  exportResult: byId("export-result", HTMLElement),
  exportLink: byId("export-link", HTMLAnchorElement),
};

/** @typedef {ImageBitmap | HTMLCanvasElement} Drawable */

/**
 * What is being framed: a bitmap or canvas, and a name for the download.
 * @type {{ image: Drawable, name: string } | null}
 */
let source = null;
let busy = false;
/** @type {ReturnType<typeof setInterval> | 0} */
let retryTimer = 0;
let retryUntil = 0;

// ---------- status, progress and errors ----------

/**
 * The error envelope of an API answer (only the fields the page shows).
 * @typedef {{ error?: string, hint?: string, retryAfter?: number }} Envelope
 */

/** A failed request, carrying the envelope's message, hint and (for 429) retry delay. */
class ApiFailure extends Error {
  /**
   * @param {Envelope} body
   * @param {number} status
   */
  constructor(body, status) {
    super(body.error || `HTTP ${status}`);
    this.hint = body.hint || "";
    this.status = status;
    this.retryAfter = body.retryAfter;
  }
}

/** @param {string} text */
function setStatus(text) {
  els.status.textContent = text;
}

/** @param {ApiFailure} failure */
function showError(failure) {
  els.errorTitle.textContent = failure.message;
  els.errorHint.textContent = failure.hint || "";
  els.error.hidden = false;
  if (failure.status === 429) startRetryCountdown(Number(failure.retryAfter) || 1);
}

function clearError() {
  els.error.hidden = true;
  if (!retryTimer) els.errorWait.hidden = true;
}

/**
 * Disables capturing until the rate limit's window allows it again, counting down.
 * @param {number} seconds
 */
function startRetryCountdown(seconds) {
  retryUntil = Date.now() + seconds * 1000;
  clearInterval(retryTimer);
  const tick = () => {
    const left = Math.ceil((retryUntil - Date.now()) / 1000);
    els.errorWait.hidden = false;
    if (left > 0) {
      els.errorWait.textContent = `You can capture again in ${left} s.`;
      els.captureSubmit.disabled = true;
      return;
    }
    clearInterval(retryTimer);
    retryTimer = 0;
    els.errorWait.textContent = "You can capture again now.";
    els.captureSubmit.disabled = busy;
  };
  retryTimer = setInterval(tick, 250);
  tick();
}

/**
 * Runs `task` with the progress bar up and the forms locked; shows failures.
 * @param {string} label
 * @param {() => Promise<string>} task resolves with the status line to show when done
 */
async function withProgress(label, task) {
  if (busy) return;
  busy = true;
  clearError();
  const started = Date.now();
  const show = () => setStatus(`${label}… ${Math.floor((Date.now() - started) / 1000)} s`);
  show();
  const timer = setInterval(show, 1000);
  els.progress.hidden = false;
  els.stage.setAttribute("aria-busy", "true");
  for (const button of [els.captureSubmit, els.postSubmit, els.exportSubmit]) {
    button.disabled = true;
  }
  try {
    setStatus(await task());
  } catch (error) {
    const failure = error instanceof ApiFailure ? error : unexpected(error);
    showError(failure);
    setStatus("Failed.");
  } finally {
    clearInterval(timer);
    busy = false;
    els.progress.hidden = true;
    els.stage.setAttribute("aria-busy", "false");
    els.captureSubmit.disabled = retryUntil > Date.now();
    els.postSubmit.disabled = false;
    els.exportSubmit.disabled = !source;
  }
}

/**
 * A failure that is not an API answer: the network, or an image that would not decode.
 * @param {unknown} error
 */
function unexpected(error) {
  if (error instanceof TypeError) {
    return new ApiFailure({
      error: "The service could not be reached.",
      hint: "Check your connection and try again.",
    }, 0);
  }
  return new ApiFailure({
    error: `Something went wrong: ${error instanceof Error ? error.message : error}`,
    hint: "Try again; if it keeps failing, try another page or post.",
  }, 0);
}

/**
 * fetch() that turns any non-2xx answer into an ApiFailure carrying the envelope.
 * @param {string} url
 * @param {RequestInit} [init]
 */
async function request(url, init) {
  const res = await fetch(url, init);
  if (res.ok) return res;
  /** @type {Envelope} */
  let body = {};
  try {
    body = await res.json();
  } catch {
    body = { error: `The service answered HTTP ${res.status}.` };
  }
  if (res.status === 429 && body.retryAfter === undefined) {
    body.retryAfter = Number(res.headers.get("Retry-After")) || 1;
  }
  throw new ApiFailure(body, res.status);
}

// ---------- capture ----------

/** @param {string} text */
function normaliseUrl(text) {
  const trimmed = text.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`;
}

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

els.captureForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const form = new FormData(els.captureForm);
  const body = {
    url: normaliseUrl(String(form.get("url"))),
    deviceType: form.get("deviceType"),
    colorScheme: form.get("colorScheme"),
    forceRefresh: form.get("forceRefresh") === "on",
  };
  withProgress(`Capturing ${body.url}`, async () => {
    const res = await request("/api/screenshot", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const shot = await res.json();
    const bitmap = await createImageBitmap(base64ToBlob(shot.screenshot, "image/png"));
    setSource(bitmap, new URL(shot.url).hostname);
    const origin = shot.cached ? "from the cache" : "fresh";
    return `Captured ${shot.url} (${bitmap.width}×${bitmap.height}, ${origin}).`;
  });
});

// ---------- post card ----------

/**
 * A numeric id, or the id at the end of an x.com / twitter.com status URL.
 * @param {string} text
 */
function parsePostRef(text) {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return trimmed;
  try {
    const url = new URL(normaliseUrl(trimmed));
    const host = url.hostname.replace(/^(www|mobile)\./, "");
    const match = /\/status(?:es)?\/(\d+)/.exec(url.pathname);
    if ((host === "x.com" || host === "twitter.com") && match) return match[1];
  } catch {
    // Not a URL either: reported below.
  }
  return null;
}

/**
 * Media always comes through our own origin, so the canvas stays readable.
 * @param {string} url
 */
const proxied = (url) => `/api/image-proxy?url=${encodeURIComponent(url)}`;

/**
 * @param {string} url
 * @returns {Promise<HTMLImageElement>}
 */
function loadImage(url) {
  const img = new Image();
  img.src = proxied(url);
  return img.decode().then(() => img);
}

/** @param {string} text */
function decodeEntities(text) {
  /** @type {Record<string, string>} */
  const named = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name) => named[name]);
}

/**
 * The fields of a post (as GET /api/post/{id} returns it) that the card shows.
 * @typedef {{
 *   text?: string,
 *   display_text_range?: [number, number],
 *   entities?: { urls?: Array<{ url?: string, display_url?: string }> },
 *   created_at?: string,
 *   user?: {
 *     name?: string,
 *     screen_name?: string,
 *     profile_image_url_https?: string,
 *     profile_image_shape?: string,
 *   },
 *   mediaDetails?: Array<{ media_url_https?: string }>,
 *   photos?: Array<{ url?: string }>,
 * }} Post
 */

/**
 * The post's visible text: display range only, t.co links shown as their display form.
 * @param {Post} post
 */
function postText(post) {
  let text = post.text || "";
  const range = post.display_text_range;
  if (Array.isArray(range)) text = Array.from(text).slice(range[0], range[1]).join("");
  for (const link of post.entities?.urls ?? []) {
    if (link.url && link.display_url) text = text.replaceAll(link.url, link.display_url);
  }
  return decodeEntities(text).trim();
}

/** @param {Post} post */
function firstPhotoUrl(post) {
  const media = post.mediaDetails?.[0]?.media_url_https ?? post.photos?.[0]?.url;
  if (!media) return null;
  const url = new URL(media);
  // "medium" is at most 1200 px wide: sharp on a 2x card without fetching the original.
  if (url.hostname === "pbs.twimg.com" && url.pathname.startsWith("/media/")) {
    url.searchParams.set("name", "medium");
  }
  return url.href;
}

/** @typedef {{ bg: string, fg: string, muted: string, line: string }} CardTheme */
/** @type {Record<string, CardTheme>} */
const CARD_THEMES = {
  light: { bg: "#ffffff", fg: "#0f1419", muted: "#536471", line: "#cfd9de" },
  dark: { bg: "#15202b", fg: "#f7f9f9", muted: "#8b98a5", line: "#38444d" },
};
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/**
 * Splits text into lines no wider than `width`, keeping explicit line breaks.
 * @param {(text: string) => number} measure width of a text in the card's body font
 * @param {string} text
 * @param {number} width
 */
function wrapText(measure, text, width) {
  const lines = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/(\s+)/)) {
      const candidate = line + word;
      if (measure(candidate) <= width || !line.trim()) {
        line = candidate;
        continue;
      }
      lines.push(line.trimEnd());
      line = word.trimStart();
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/**
 * @typedef {{ x: number, y: number, w: number, h: number }} Box
 * @typedef {{ text: string, x: number, y: number, maxWidth?: number }} TextRun
 * @typedef {{
 *   width: number,
 *   height: number,
 *   avatar: Box,
 *   squareAvatar: boolean,
 *   name: TextRun,
 *   handle: TextRun,
 *   lines: TextRun[],
 *   photo: Box | null,
 *   date: TextRun | null,
 * }} CardLayout
 */

const CARD = { width: 550, pad: 24, avatar: 48, lineHeight: 24, scale: 2 };
const CARD_FONTS = {
  name: `700 16px ${FONT}`,
  handle: `15px ${FONT}`,
  body: `17px ${FONT}`,
  date: `15px ${FONT}`,
};

/**
 * Where everything on a post card goes, in CSS pixels: pure, so it can be reasoned about
 * (and tested) without a canvas.
 * @param {object} input
 * @param {Post} input.post
 * @param {(text: string) => number} input.measure width of a text in the body font
 * @param {{ width: number, height: number } | null} input.photoSize the first photo, if any
 * @returns {CardLayout}
 */
function layoutPostCard({ post, measure, photoSize }) {
  const { width, pad, avatar: side, lineHeight } = CARD;
  const inner = width - 2 * pad;
  const user = post.user ?? {};
  const textTop = pad + side + 14;
  const lines = wrapText(measure, postText(post), inner).map((text, i) => ({
    text,
    x: pad,
    y: textTop + (i + 1) * lineHeight - 6,
  }));
  let y = textTop + lines.length * lineHeight;
  let photo = null;
  if (photoSize) {
    const h = Math.min(inner * 1.25, inner * photoSize.height / photoSize.width);
    photo = { x: pad, y: y + 10, w: inner, h: Math.max(80, Math.round(h)) };
    y = photo.y + photo.h;
  }
  const height = y + 16 + 20 + pad;
  const created = new Date(post.created_at ?? "");
  let date = null;
  if (!Number.isNaN(created.getTime())) {
    const time = created.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });
    const day = created.toLocaleDateString(undefined, {
      year: "numeric",
      month: "short",
      day: "numeric",
    });
    date = { text: `${time} · ${day}`, x: pad, y: height - pad - 4 };
  }
  const textX = pad + side + 12;
  return {
    width,
    height,
    avatar: { x: pad, y: pad, w: side, h: side },
    squareAvatar: user.profile_image_shape === "Square",
    name: { text: user.name ?? "", x: textX, y: pad + 20, maxWidth: inner - 60 },
    handle: {
      text: user.screen_name ? `@${user.screen_name}` : "",
      x: textX,
      y: pad + 42,
      maxWidth: inner - 60,
    },
    lines,
    photo,
    date,
  };
}

/**
 * Paints a laid-out post card at 2x on a new canvas.
 * @param {CardLayout} layout
 * @param {object} look
 * @param {CardTheme} look.theme
 * @param {HTMLImageElement | null} look.avatar
 * @param {HTMLImageElement | null} look.photo
 */
function paintPostCard(layout, { theme, avatar, photo }) {
  const canvas = document.createElement("canvas");
  canvas.width = layout.width * CARD.scale;
  canvas.height = layout.height * CARD.scale;
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("This browser cannot draw on a canvas.");
  ctx.scale(CARD.scale, CARD.scale);
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, 0, layout.width, layout.height);

  const a = layout.avatar;
  ctx.save();
  ctx.beginPath();
  if (layout.squareAvatar) ctx.roundRect(a.x, a.y, a.w, a.h, 6);
  else ctx.arc(a.x + a.w / 2, a.y + a.h / 2, a.w / 2, 0, Math.PI * 2);
  ctx.clip();
  ctx.fillStyle = theme.line;
  ctx.fillRect(a.x, a.y, a.w, a.h);
  if (avatar) ctx.drawImage(avatar, a.x, a.y, a.w, a.h);
  ctx.restore();

  /** @type {(run: TextRun, font: string, color: string) => void} */
  const text = (run, font, color) => {
    ctx.fillStyle = color;
    ctx.font = font;
    ctx.fillText(run.text, run.x, run.y, run.maxWidth);
  };
  ctx.textBaseline = "alphabetic";
  text(layout.name, CARD_FONTS.name, theme.fg);
  text(layout.handle, CARD_FONTS.handle, theme.muted);
  for (const line of layout.lines) text(line, CARD_FONTS.body, theme.fg);

  const box = layout.photo;
  if (photo && box) {
    ctx.save();
    ctx.beginPath();
    ctx.roundRect(box.x, box.y, box.w, box.h, 14);
    ctx.clip();
    // Cover: crop the photo to the box, centred.
    const ratio = Math.max(box.w / photo.naturalWidth, box.h / photo.naturalHeight);
    const sw = box.w / ratio, sh = box.h / ratio;
    const sx = (photo.naturalWidth - sw) / 2, sy = (photo.naturalHeight - sh) / 2;
    ctx.drawImage(photo, sx, sy, sw, sh, box.x, box.y, box.w, box.h);
    ctx.restore();
    ctx.strokeStyle = theme.line;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.roundRect(box.x + 0.5, box.y + 0.5, box.w - 1, box.h - 1, 14);
    ctx.stroke();
  }
  if (layout.date) text(layout.date, CARD_FONTS.date, theme.muted);
  return canvas;
}

/**
 * Draws the post card (avatar, name, handle, text, first photo, date) at 2x on a canvas.
 * @param {Post} post
 * @param {string} themeName
 */
async function drawPostCard(post, themeName) {
  const theme = CARD_THEMES[themeName] ?? CARD_THEMES.light;
  const avatarUrl = post.user?.profile_image_url_https?.replace("_normal.", "_200x200.");
  const photoUrl = firstPhotoUrl(post);
  const [avatar, photo] = await Promise.all([
    avatarUrl ? loadImage(avatarUrl) : null,
    photoUrl ? loadImage(photoUrl) : null,
  ]);
  const measuring = document.createElement("canvas").getContext("2d");
  if (!measuring) throw new Error("This browser cannot draw on a canvas.");
  measuring.font = CARD_FONTS.body;
  const layout = layoutPostCard({
    post,
    measure: (text) => measuring.measureText(text).width,
    photoSize: photo ? { width: photo.naturalWidth, height: photo.naturalHeight } : null,
  });
  return paintPostCard(layout, { theme, avatar, photo });
}

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
  withProgress(`Loading post ${id}`, async () => {
    const res = await request(`/api/post/${id}`);
    const { data } = await res.json();
    const card = await drawPostCard(data, String(form.get("cardTheme")));
    setSource(card, `post-${id}`);
    const handle = data.user?.screen_name ? ` by @${data.user.screen_name}` : "";
    return `Post ${id}${handle} drawn.`;
  });
});

// ---------- frame ----------

const frameInputs = {
  background: byId("background", HTMLSelectElement),
  from: byId("color-from", HTMLInputElement),
  to: byId("color-to", HTMLInputElement),
  padding: byId("padding", HTMLInputElement),
  radius: byId("radius", HTMLInputElement),
  shadow: byId("shadow", HTMLInputElement),
};
const frameOutputs = {
  padding: byId("padding-out", HTMLOutputElement),
  radius: byId("radius-out", HTMLOutputElement),
  shadow: byId("shadow-out", HTMLOutputElement),
};

// Read from the elements, not FormData: a disabled colour input is left out of FormData.
function frameSettings() {
  /** @param {keyof typeof frameInputs} name */
  const value = (name) => frameInputs[name].value;
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
 * @param {Drawable} image
 * @param {string} name
 */
function setSource(image, name) {
  source = { image, name };
  els.empty.hidden = true;
  els.canvas.hidden = false;
  els.exportResult.textContent = "";
  render();
  // On a phone the preview sits below the forms: bring it into view.
  if (matchMedia("(max-width: 52rem)").matches) els.stage.scrollIntoView({ block: "start" });
}

/** Draws the source on the visible canvas with background, padding, corners and shadow. */
function render() {
  const settings = frameSettings();
  for (const key of /** @type {const} */ (["padding", "radius", "shadow"])) {
    frameOutputs[key].textContent = String(settings[key]);
  }
  frameInputs.to.disabled = settings.background !== "gradient";
  frameInputs.from.disabled = settings.background === "none";
  if (!source) return;
  const { width: w, height: h } = source.image;
  // Sliders are in units of a 1000 px wide image, so the look does not depend on capture size.
  const unit = Math.max(w, 600) / 1000;
  const pad = Math.round((w * settings.padding) / 100);
  const radius = Math.min(settings.radius * unit, w / 2, h / 2);
  const blur = settings.shadow * unit;
  const canvas = els.canvas;
  canvas.width = w + 2 * pad;
  canvas.height = h + 2 * pad;
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("This browser cannot draw on a canvas.");
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

els.frameForm.addEventListener("input", render);
els.frameForm.addEventListener("submit", (event) => event.preventDefault());

// ---------- export ----------

/** @type {Record<string, string>} */
const EXTENSIONS = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };

/** @param {number} bytes */
function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

/** @param {Date} date */
function timestamp(date) {
  /** @param {number} n */
  const two = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}${two(date.getMonth() + 1)}${two(date.getDate())}-` +
    `${two(date.getHours())}${two(date.getMinutes())}${two(date.getSeconds())}`;
}

els.exportForm.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!source) return;
  const { name: sourceName } = source;
  const form = new FormData(els.exportForm);
  const format = String(form.get("format"));
  withProgress(`Exporting ${format.toUpperCase()}`, async () => {
    const png = await new Promise((resolve) => els.canvas.toBlob(resolve, "image/png"));
    if (!png) throw new ApiFailure({ error: "The canvas could not be encoded." }, 0);
    const upload = new FormData();
    upload.append("image", png, "canvas.png");
    upload.append("format", format);
    upload.append("qualityPreset", String(form.get("qualityPreset")));
    const res = await request("/api/export", { method: "POST", body: upload });
    const blob = await res.blob();
    const ext = EXTENSIONS[blob.type] ?? format;
    const name = `shotline-${sourceName}-${timestamp(new Date())}.${ext}`;
    const link = els.exportLink;
    if (link.href) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(blob);
    link.download = name;
    link.textContent = `Download ${name} again`;
    link.hidden = false;
    link.click();
    els.exportResult.textContent = `${name}: ${formatBytes(blob.size)} ` +
      `(canvas PNG ${formatBytes(png.size)}, ${els.canvas.width}×${els.canvas.height}).`;
    return `Exported ${name} (${formatBytes(blob.size)}).`;
  });
});

// ---------- start ----------

// Pre-select the viewer's own colour scheme for captures and cards.
if (matchMedia("(prefers-color-scheme: dark)").matches) {
  byId("colorScheme-dark", HTMLInputElement).checked = true;
  byId("cardTheme-dark", HTMLInputElement).checked = true;
}
render();
