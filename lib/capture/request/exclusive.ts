/**
 * Options that contradict each other: sent together, one of them would be silently ignored (the
 * render can only do one), so the pair is refused with a 400 that names both fields. Plain data,
 * one reason each; pairs that combine sensibly (a device with its own width, a user agent over a
 * device's) are not here.
 */
import { invalidField } from "./request_failure.ts";
import type { CaptureOptions } from "./options.ts";
import type { Credentials } from "./credentials.ts";

/** What the table reads: the options, the cache fields, whether an html document was sent. */
export interface ExclusiveFields extends CaptureOptions {
  /** The html document, when one was sent instead of url (only its presence is read here). */
  html?: string;
  forceRefresh?: boolean;
  maxAge?: number;
  staleWhileRevalidate?: boolean;
  failOnHttpError?: boolean;
  cookies?: Credentials["cookies"];
  headers?: Credentials["headers"];
}

/** Two options that cannot both hold; `names` say it in the request's terms, fields first. */
export interface ExclusivePair {
  /** The two fields, as the request spells them. */
  fields: readonly [string, string];
  /** How the message names each side (a field, or a field with the value that conflicts). */
  names: readonly [string, string];
  /** Whether this request sends both sides. */
  sent(fields: ExclusiveFields): boolean;
  /** Why they contradict and what to send instead. */
  hint: string;
}

const hasAcceptLanguage = (headers: Record<string, string> | undefined) =>
  Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "accept-language");

/** Every pair refused, in the order they are checked. */
export const EXCLUSIVE_PAIRS: readonly ExclusivePair[] = [
  {
    fields: ["selector", "clip"],
    names: ["selector", "clip"],
    sent: (f) => f.selector !== undefined && f.clip !== undefined,
    hint: "Send clip to shoot a rectangle of the page, or selector to shoot one element.",
  },
  {
    // The element's whole box is shot, past the viewport too: fullPage would change nothing.
    fields: ["selector", "fullPage"],
    names: ["selector", "fullPage"],
    sent: (f) => f.selector !== undefined && f.fullPage === true,
    hint: "selector shoots one element's whole box, beyond the viewport too; fullPage the " +
      "whole page. Send one of them.",
  },
  {
    // A clip is a rectangle of the whole document already: fullPage would change nothing.
    fields: ["clip", "fullPage"],
    names: ["clip", "fullPage"],
    sent: (f) => f.clip !== undefined && f.fullPage === true,
    hint: "clip shoots a rectangle of the whole document, beyond the viewport too; fullPage " +
      "the whole page. Send one of them.",
  },
  {
    fields: ["quality", "format"],
    names: ["quality", 'format "png"'],
    sent: (f) => f.quality !== undefined && (f.format ?? "png") === "png",
    hint: 'PNG is lossless: leave quality out, or send format "jpeg" or "webp" with it (png is ' +
      "the format when neither format nor Accept names another).",
  },
  {
    fields: ["transparent", "format"],
    names: ["transparent", 'format "jpeg"'],
    sent: (f) => f.transparent === true && f.format === "jpeg",
    hint: 'JPEG has no alpha channel: send format "png" or "webp" with transparent, or leave ' +
      "transparent out.",
  },
  {
    // An html document has no HTTP status: the check could never fail.
    fields: ["html", "failOnHttpError"],
    names: ["html", "failOnHttpError"],
    sent: (f) => f.html !== undefined && f.failOnHttpError === true,
    hint: "failOnHttpError judges the status of a page loaded from url; an html document has " +
      "none. Leave failOnHttpError out, or capture a url.",
  },
  {
    // Credentials go to the target's own origin only, and an html document has none.
    fields: ["html", "cookies"],
    names: ["html", "cookies"],
    sent: (f) => f.html !== undefined && (f.cookies?.length ?? 0) > 0,
    hint: "cookies are sent to the origin of url only; an html document has no origin, so " +
      "they would go nowhere. Capture the page's url with them, or leave them out.",
  },
  {
    fields: ["html", "headers"],
    names: ["html", "headers"],
    sent: (f) => f.html !== undefined && Object.keys(f.headers ?? {}).length > 0,
    hint: "headers are sent to the origin of url only; an html document has no origin, so " +
      "they would go nowhere. Capture the page's url with them, or leave them out.",
  },
  {
    // On the target's requests the header would win, everywhere else locale: a page of two minds.
    fields: ["locale", "headers"],
    names: ["locale", "an Accept-Language in headers"],
    sent: (f) => f.locale !== undefined && hasAcceptLanguage(f.headers),
    hint: "locale sets Accept-Language itself (with navigator.language and Intl): send " +
      "locale alone.",
  },
  {
    // With the page's scripts off, the caller's would run in a page that never ran its own.
    fields: ["scripts", "javaScript"],
    names: ["scripts", "javaScript false"],
    sent: (f) => (f.scripts?.length ?? 0) > 0 && f.javaScript === false,
    hint: "javaScript false stops every script in the page, so scripts could not run as the " +
      "page's own: send scripts with javaScript left on, or leave scripts out.",
  },
  {
    // maxAge 0 is a refresh too, so only a positive maxAge contradicts.
    fields: ["forceRefresh", "maxAge"],
    names: ["forceRefresh", "maxAge"],
    sent: (f) => f.forceRefresh === true && (f.maxAge ?? 0) > 0,
    hint: "forceRefresh never serves the cache, maxAge serves it when young enough: send one " +
      "of them (maxAge 0 is forceRefresh).",
  },
  {
    fields: ["forceRefresh", "staleWhileRevalidate"],
    names: ["forceRefresh", "staleWhileRevalidate"],
    sent: (f) => f.forceRefresh === true && f.staleWhileRevalidate === true,
    hint: "forceRefresh never serves the cache, staleWhileRevalidate serves a stale capture " +
      "at once: send one of them.",
  },
];

/** 400 naming both fields of the first pair of `pairs` the request sends (EXCLUSIVE_PAIRS). */
export function refuseContradictions(
  fields: ExclusiveFields,
  pairs: readonly ExclusivePair[] = EXCLUSIVE_PAIRS,
): void {
  const pair = pairs.find((candidate) => candidate.sent(fields));
  if (!pair) return;
  throw invalidField(`${pair.names[0]} and ${pair.names[1]} cannot be combined.`, pair.hint);
}
