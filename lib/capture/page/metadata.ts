/**
 * What the captured page says about itself (title, description, language, theme colour, favicon,
 * og:image), read in one evaluation once it settled: a few querySelector calls, well under a
 * millisecond of page time, so a warm capture pays one protocol round trip for it.
 */
import type { Page } from "puppeteer-core";
import { NO_PAGE_METADATA, type PageMetadata } from "../types.ts";

// Longest text kept per field: a title bar and a card need a line, not a page.
const MAX_TEXT = 300;
// Longest URL kept (favicon, og:image): a data: URL icon is dropped rather than carried.
const MAX_URL = 2048;

// Runs in the page (kept as text: the service is not type-checked against the DOM). The best
// icon for a title bar: an SVG (any size), else the declared size closest to 32 px from above,
// else the largest, else an apple-touch-icon, else the origin's /favicon.ico. A theme-color meta
// with a media query counts only when it matches (the page sees the emulated colour scheme).
const METADATA_SCRIPT = `((maxText, maxUrl) => {
  const text = (value) => {
    const trimmed = (value || "").replace(/\\s+/g, " ").trim();
    return trimmed ? trimmed.slice(0, maxText) : null;
  };
  const absolute = (value) => {
    if (!value) return null;
    try {
      const url = new URL(value.trim(), document.baseURI);
      return /^https?:$/.test(url.protocol) && url.href.length <= maxUrl ? url.href : null;
    } catch { return null; }
  };
  const meta = (selector) => document.querySelector(selector)?.getAttribute("content") ?? null;
  const size = (link) => {
    const sizes = (link.getAttribute("sizes") || "").toLowerCase();
    if (sizes === "any" || /svg/.test(link.type) || /\\.svg(\\?|$)/i.test(link.href)) return 1e6;
    const sides = sizes.split(/\\s+/).map((s) => parseInt(s, 10)).filter((n) => n > 0);
    return sides.length ? Math.max(...sides) : 0;
  };
  const rank = (side) => side === 1e6 ? 0 : side >= 32 ? 1 + side : side === 0 ? 1e5 : 2e5 - side;
  const icons = [...document.querySelectorAll("link[rel][href]")]
    .filter((l) => l.relList.contains("icon") && absolute(l.getAttribute("href")))
    .sort((a, b) => rank(size(a)) - rank(size(b)));
  const touch = document.querySelector('link[rel~="apple-touch-icon"][href]');
  const declared = icons[0]?.getAttribute("href") ?? touch?.getAttribute("href");
  const origin = /^https?:$/.test(location.protocol) ? location.origin + "/favicon.ico" : null;
  const theme = [...document.querySelectorAll('meta[name="theme-color" i][content]')]
    .find((m) => !m.media || matchMedia(m.media).matches);
  return {
    title: text(document.title),
    description: text(
      meta('meta[name="description" i]') ?? meta('meta[property="og:description"]'),
    ),
    lang: text(document.documentElement.getAttribute("lang")),
    themeColor: text(theme?.getAttribute("content")),
    favicon: absolute(declared) ?? origin,
    ogImage: absolute(meta('meta[property="og:image"]') ?? meta('meta[name="twitter:image" i]')),
  };
})(${MAX_TEXT}, ${MAX_URL})`;

/** What the page declares: every field but the icon's bytes, which favicon.ts reads. */
export type DeclaredMetadata = Omit<PageMetadata, "faviconData">;

/** The page's metadata; a page that cannot answer (navigated away, hung) says nothing. */
export async function readPageMetadata(page: Page): Promise<DeclaredMetadata> {
  try {
    const found = await page.evaluate(METADATA_SCRIPT) as Partial<DeclaredMetadata> | null;
    const pick = (value: unknown) => typeof value === "string" ? value : null;
    return {
      title: pick(found?.title),
      description: pick(found?.description),
      lang: pick(found?.lang),
      themeColor: pick(found?.themeColor),
      favicon: pick(found?.favicon),
      ogImage: pick(found?.ogImage),
    };
  } catch {
    return NO_PAGE_METADATA;
  }
}
