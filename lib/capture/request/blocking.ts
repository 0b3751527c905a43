/**
 * blockRequests patterns: a pattern matches a whole URL, `*` standing for any run of characters
 * (`*://fonts.googleapis.com/*`, `*.woff2`). Matched segment by segment with indexOf, never as a
 * regular expression, so a pattern of many stars cannot make a match take exponential time.
 */
import { invalidField } from "./request_failure.ts";

/** Whether `url` matches one pattern. */
export function matchesPattern(pattern: string, url: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return url === pattern;
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (!url.startsWith(first) || url.length < first.length + last.length) return false;
  if (!url.endsWith(last)) return false;
  // The leftmost place of each middle segment is the best one: it leaves the most for the rest.
  let at = first.length;
  const end = url.length - last.length;
  for (const part of parts.slice(1, -1)) {
    if (part === "") continue;
    const found = url.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** A test of a URL against every pattern. */
export function urlPatterns(patterns: readonly string[]): (url: string) => boolean {
  return (url) => patterns.some((pattern) => matchesPattern(pattern, url));
}

/** 400 when a blockRequests pattern matches the page's own URL: the page cannot be blocked. */
export function checkDocumentNotBlocked(patterns: readonly string[] | undefined, url: string) {
  const pattern = patterns?.find((p) => matchesPattern(p, url));
  if (pattern === undefined) return;
  throw invalidField(
    `blockRequests pattern "${pattern}" matches the page itself.`,
    "The page's own document cannot be blocked: narrow the pattern so it matches only " +
      "the subresources to keep out (e.g. *.woff2 or *://tracker.example/*).",
  );
}
