// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// Post cards: a post from GET /api/post/{id} laid out (pure) and painted on a canvas.
import { firstPhotoUrl, postText } from "./post.js";
import { context2d } from "./shared.js";

/** @typedef {import("./post.js").Post} Post */

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
  const ctx = context2d(canvas);
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
export async function drawPostCard(post, themeName) {
  const theme = CARD_THEMES[themeName] ?? CARD_THEMES.light;
  const avatarUrl = post.user?.profile_image_url_https?.replace("_normal.", "_200x200.");
  const photoUrl = firstPhotoUrl(post);
  const [avatar, photo] = await Promise.all([
    avatarUrl ? loadImage(avatarUrl) : null,
    photoUrl ? loadImage(photoUrl) : null,
  ]);
  const measuring = context2d(document.createElement("canvas"));
  measuring.font = CARD_FONTS.body;
  const layout = layoutPostCard({
    post,
    measure: (text) => measuring.measureText(text).width,
    photoSize: photo ? { width: photo.naturalWidth, height: photo.naturalHeight } : null,
  });
  return paintPostCard(layout, { theme, avatar, photo });
}
