/**
 * The entry of lib/capture/page/vendor/readable_page.js (scripts/build_readable_page.ts): one
 * function on a private global of the world it runs in, which reads the page as Markdown or HTML
 * and caps the answer at `maxBytes` of UTF-8.
 */
import { htmlOf } from "./html.js";
import { markdownOf } from "./markdown.js";

globalThis.__shotlineReadable = (format, maxBytes) => {
  const text = format === "html" ? htmlOf(document) : markdownOf(document);
  return capped(text, maxBytes);
};

/** The text cut to at most `maxBytes` of UTF-8 at a character boundary. */
function capped(text, maxBytes) {
  // A UTF-16 unit never takes more than three bytes: most answers need no encoding to know.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(maxBytes));
  return read === text.length
    ? { text, truncated: false }
    : { text: text.slice(0, read), truncated: true };
}
