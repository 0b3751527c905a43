// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// Posts: the id in what people paste, and the parts of a post a card shows.
import { normaliseUrl } from "./shared.js";

/**
 * A numeric id, or the id at the end of an x.com / twitter.com status URL.
 * @param {string} text
 */
export function parsePostRef(text) {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return trimmed;
  try {
    const url = new URL(normaliseUrl(trimmed));
    const host = url.hostname.replace(/^(www|mobile)\./, "");
    const match = /\/status(?:es)?\/(\d+)/.exec(url.pathname);
    if ((host === "x.com" || host === "twitter.com") && match) return match[1];
  } catch {
    // Not a URL either: the caller reports it.
  }
  return null;
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
export function postText(post) {
  let text = post.text || "";
  const range = post.display_text_range;
  if (Array.isArray(range)) text = Array.from(text).slice(range[0], range[1]).join("");
  for (const link of post.entities?.urls ?? []) {
    if (link.url && link.display_url) text = text.replaceAll(link.url, link.display_url);
  }
  return decodeEntities(text).trim();
}

/**
 * The first photo's URL, at a size that is sharp on a 2x card.
 * @param {Post} post
 */
export function firstPhotoUrl(post) {
  const media = post.mediaDetails?.[0]?.media_url_https ?? post.photos?.[0]?.url;
  if (!media) return null;
  const url = new URL(media);
  // "medium" is at most 1200 px wide: sharp on a 2x card without fetching the original.
  if (url.hostname === "pbs.twimg.com" && url.pathname.startsWith("/media/")) {
    url.searchParams.set("name", "medium");
  }
  return url.href;
}
