// Shotline editor: capture a page or draw a post card, frame it on a canvas, export it.
// Plain ES module, no build step; every request stays on this origin (CSP connect-src 'self').

const byId = (id) => document.getElementById(id);
const els = {
  stage: byId("stage"),
  status: byId("status"),
  progress: byId("progress"),
  error: byId("error"),
  errorTitle: byId("error-title"),
  errorHint: byId("error-hint"),
  errorWait: byId("error-wait"),
  empty: byId("empty"),
  canvas: byId("canvas"),
  captureForm: byId("capture-form"),
  captureUrl: byId("capture-url"),
  captureSubmit: byId("capture-submit"),
  postForm: byId("post-form"),
  postRef: byId("post-ref"),
  postSubmit: byId("post-submit"),
  frameForm: byId("frame-form"),
  exportForm: byId("export-form"),
  exportSubmit: byId("export-submit"),
  exportResult: byId("export-result"),
  exportLink: byId("export-link"),
};

/** What is being framed: a bitmap or canvas, and a name for the download. */
let source = null;
let busy = false;
let retryTimer = 0;
let retryUntil = 0;

// ---------- status, progress and errors ----------

class ApiFailure extends Error {
  constructor(body, status) {
    super(body.error || `HTTP ${status}`);
    this.hint = body.hint || "";
    this.status = status;
    this.retryAfter = body.retryAfter;
  }
}

function setStatus(text) {
  els.status.textContent = text;
}

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

/** Disables capturing until the rate limit's window allows it again, counting down. */
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

/** Runs `task` with the progress bar up and the forms locked; shows failures. */
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

/** A failure that is not an API answer: the network, or an image that would not decode. */
function unexpected(error) {
  if (error instanceof TypeError) {
    return new ApiFailure({
      error: "The service could not be reached.",
      hint: "Check your connection and try again.",
    }, 0);
  }
  return new ApiFailure({
    error: `Something went wrong: ${error?.message ?? error}`,
    hint: "Try again; if it keeps failing, try another page or post.",
  }, 0);
}

/** fetch() that turns any non-2xx answer into an ApiFailure carrying the envelope. */
async function request(url, init) {
  const res = await fetch(url, init);
  if (res.ok) return res;
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

function normaliseUrl(text) {
  const trimmed = text.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`;
}

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

/** A numeric id, or the id at the end of an x.com / twitter.com status URL. */
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

/** Media always comes through our own origin, so the canvas stays readable. */
const proxied = (url) => `/api/image-proxy?url=${encodeURIComponent(url)}`;

function loadImage(url) {
  const img = new Image();
  img.src = proxied(url);
  return img.decode().then(() => img);
}

function decodeEntities(text) {
  const named = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name) => named[name]);
}

/** The post's visible text: display range only, t.co links shown as their display form. */
function postText(post) {
  let text = post.text || "";
  const range = post.display_text_range;
  if (Array.isArray(range)) text = Array.from(text).slice(range[0], range[1]).join("");
  for (const link of post.entities?.urls ?? []) {
    if (link.url && link.display_url) text = text.replaceAll(link.url, link.display_url);
  }
  return decodeEntities(text).trim();
}

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

const CARD_THEMES = {
  light: { bg: "#ffffff", fg: "#0f1419", muted: "#536471", line: "#cfd9de" },
  dark: { bg: "#15202b", fg: "#f7f9f9", muted: "#8b98a5", line: "#38444d" },
};
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** Splits text into lines no wider than `width`, keeping explicit line breaks. */
function wrapText(ctx, text, width) {
  const lines = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/(\s+)/)) {
      const candidate = line + word;
      if (ctx.measureText(candidate).width <= width || !line.trim()) {
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

/** Draws the post card (avatar, name, handle, text, first photo, date) at 2x on a canvas. */
async function drawPostCard(post, themeName) {
  const theme = CARD_THEMES[themeName] ?? CARD_THEMES.light;
  const user = post.user ?? {};
  const avatarUrl = user.profile_image_url_https?.replace("_normal.", "_200x200.");
  const photoUrl = firstPhotoUrl(post);
  const [avatar, photo] = await Promise.all([
    avatarUrl ? loadImage(avatarUrl) : null,
    photoUrl ? loadImage(photoUrl) : null,
  ]);
  const scale = 2, width = 550, pad = 24, inner = width - 2 * pad;
  const measure = document.createElement("canvas").getContext("2d");
  measure.font = `17px ${FONT}`;
  const lines = wrapText(measure, postText(post), inner);
  const textTop = pad + 48 + 14;
  const lineHeight = 24;
  let y = textTop + lines.length * lineHeight;
  let photoBox = null;
  if (photo) {
    const height = Math.min(inner * 1.25, inner * photo.naturalHeight / photo.naturalWidth);
    photoBox = { x: pad, y: y + 10, w: inner, h: Math.max(80, Math.round(height)) };
    y = photoBox.y + photoBox.h;
  }
  const height = y + 16 + 20 + pad;

  const canvas = document.createElement("canvas");
  canvas.width = width * scale;
  canvas.height = height * scale;
  const ctx = canvas.getContext("2d");
  ctx.scale(scale, scale);
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, 0, width, height);

  ctx.save();
  ctx.beginPath();
  if (user.profile_image_shape === "Square") ctx.roundRect(pad, pad, 48, 48, 6);
  else ctx.arc(pad + 24, pad + 24, 24, 0, Math.PI * 2);
  ctx.clip();
  ctx.fillStyle = theme.line;
  ctx.fillRect(pad, pad, 48, 48);
  if (avatar) ctx.drawImage(avatar, pad, pad, 48, 48);
  ctx.restore();

  ctx.textBaseline = "alphabetic";
  ctx.fillStyle = theme.fg;
  ctx.font = `700 16px ${FONT}`;
  ctx.fillText(user.name ?? "", pad + 60, pad + 20, inner - 60);
  ctx.fillStyle = theme.muted;
  ctx.font = `15px ${FONT}`;
  ctx.fillText(user.screen_name ? `@${user.screen_name}` : "", pad + 60, pad + 42, inner - 60);

  ctx.fillStyle = theme.fg;
  ctx.font = `17px ${FONT}`;
  lines.forEach((line, i) => ctx.fillText(line, pad, textTop + (i + 1) * lineHeight - 6));

  if (photo && photoBox) {
    ctx.save();
    ctx.beginPath();
    ctx.roundRect(photoBox.x, photoBox.y, photoBox.w, photoBox.h, 14);
    ctx.clip();
    // Cover: crop the photo to the box, centred.
    const ratio = Math.max(photoBox.w / photo.naturalWidth, photoBox.h / photo.naturalHeight);
    const sw = photoBox.w / ratio, sh = photoBox.h / ratio;
    const sx = (photo.naturalWidth - sw) / 2, sy = (photo.naturalHeight - sh) / 2;
    ctx.drawImage(photo, sx, sy, sw, sh, photoBox.x, photoBox.y, photoBox.w, photoBox.h);
    ctx.restore();
    ctx.strokeStyle = theme.line;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.roundRect(photoBox.x + 0.5, photoBox.y + 0.5, photoBox.w - 1, photoBox.h - 1, 14);
    ctx.stroke();
  }

  const created = new Date(post.created_at);
  if (!Number.isNaN(created.getTime())) {
    const time = created.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });
    const date = created.toLocaleDateString(undefined, {
      year: "numeric",
      month: "short",
      day: "numeric",
    });
    ctx.fillStyle = theme.muted;
    ctx.font = `15px ${FONT}`;
    ctx.fillText(`${time} · ${date}`, pad, height - pad - 4);
  }
  return canvas;
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
    const card = await drawPostCard(data, form.get("cardTheme"));
    setSource(card, `post-${id}`);
    const handle = data.user?.screen_name ? ` by @${data.user.screen_name}` : "";
    return `Post ${id}${handle} drawn.`;
  });
});

// ---------- frame ----------

// Read from the elements, not FormData: a disabled colour input is left out of FormData.
function frameSettings() {
  const value = (id) => byId(id).value;
  return {
    background: value("background"),
    from: value("color-from"),
    to: value("color-to"),
    padding: Number(value("padding")),
    radius: Number(value("radius")),
    shadow: Number(value("shadow")),
  };
}

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
  for (const key of ["padding", "radius", "shadow"]) {
    byId(`${key}-out`).textContent = String(settings[key]);
  }
  byId("color-to").disabled = settings.background !== "gradient";
  byId("color-from").disabled = settings.background === "none";
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

const EXTENSIONS = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };

function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

function timestamp(date) {
  const two = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}${two(date.getMonth() + 1)}${two(date.getDate())}-` +
    `${two(date.getHours())}${two(date.getMinutes())}${two(date.getSeconds())}`;
}

els.exportForm.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!source) return;
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
    const name = `shotline-${source.name}-${timestamp(new Date())}.${ext}`;
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
  byId("colorScheme-dark").checked = true;
  byId("cardTheme-dark").checked = true;
}
render();
