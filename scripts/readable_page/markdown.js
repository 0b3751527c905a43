/**
 * The page's readable content as GitHub-flavoured Markdown: what left_out.js leaves out removed
 * from a clone, links and images made absolute, the article found by Readability (or the page's
 * one main landmark, or its body, when Readability sees no article), then Turndown with the GFM
 * tables, strikethrough and task lists, and fenced code blocks that keep their language.
 */
import { isProbablyReaderable, Readability } from "@mozilla/readability";
import TurndownService from "turndown";
import { strikethrough, tables, taskListItems } from "@joplin/turndown-plugin-gfm";
import { leaveOutNonContent } from "./left_out.js";

/** The Markdown of `document` (the live one: it is cloned, never changed). */
export function markdownOf(document) {
  const base = document.baseURI;
  const clone = document.cloneNode(true);
  leaveOutNonContent(document, clone);
  absolutize(clone, base);
  const whole = fallback(clone);
  const found = article(clone, clean(whole.content.textContent ?? "").length) ?? whole;
  const body = converter().turndown(found.content).trim();
  const title = clean(found.title);
  const first = found.content.querySelector("h1, h2, h3, h4, h5, h6");
  const titled = title && clean(first?.textContent ?? "") !== title;
  return `${titled ? `# ${escapeLine(title)}\n\n` : ""}${body}\n`;
}

// A page that fails Readability's quick test for an article is still read as one when the article
// Readability finds holds at least this share of the page's text: the rest is chrome around it.
const MOSTLY_ARTICLE = 0.5;

/** Readability's article, when the page reads like one or the article is most of the page. */
function article(clone, pageLength) {
  let readerable, parsed;
  try {
    readerable = isProbablyReaderable(clone);
    // Readability changes the document it reads: it gets a copy, the fallback keeps the clone.
    parsed = new Readability(clone.cloneNode(true), {
      keepClasses: true, // a code block's class names its language
      serializer: (element) => element,
    }).parse();
  } catch {
    return null; // a document Readability cannot walk is read whole
  }
  const length = parsed?.content ? clean(parsed.content.textContent ?? "").length : 0;
  if (!length || (!readerable && length < pageLength * MOSTLY_ARTICLE)) return null;
  return { content: parsed.content, title: parsed.title || clone.title };
}

/** A short page or a landing page: its one main landmark, or else its whole body. */
function fallback(clone) {
  const mains = clone.querySelectorAll("main, [role=main]");
  const main = mains.length === 1 && clean(mains[0].textContent ?? "") ? mains[0] : null;
  return { content: main ?? clone.body ?? clone.documentElement, title: clone.title };
}

/**
 * Links and image sources resolved against the page's base; script links become their text; a
 * heading's permalink (a link to its own fragment with no words: #, ¶, an icon) is dropped.
 */
function absolutize(clone, base) {
  for (const link of clone.querySelectorAll(":is(h1, h2, h3, h4, h5, h6) a[href^='#']")) {
    if (!/[\p{L}\p{N}]/u.test(link.textContent ?? "")) link.remove();
  }
  for (const link of clone.querySelectorAll("a[href]")) {
    const href = link.getAttribute("href").trim();
    if (/^javascript:/i.test(href)) link.replaceWith(...link.childNodes);
    else link.setAttribute("href", resolved(href, base) ?? href);
  }
  for (const image of clone.querySelectorAll("img")) {
    // Lazy loaders keep the real source aside until the image scrolls into view.
    const source = image.getAttribute("src") ?? "";
    const lazy = image.getAttribute("data-src");
    const chosen = lazy && (!source || source.startsWith("data:")) ? lazy : source;
    // An inline data: image is bytes, not a link a reader can follow.
    const absolute = chosen.startsWith("data:") ? null : resolved(chosen, base);
    if (absolute) image.setAttribute("src", absolute);
    else image.removeAttribute("src");
  }
}

function resolved(reference, base) {
  if (!reference) return null;
  try {
    return new URL(reference, base).href;
  } catch {
    return null;
  }
}

function converter() {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    hr: "---",
  });
  service.use([tables, strikethrough, taskListItems]);
  // Text such as "<string>" would read as a tag, and vanish, where the Markdown is rendered.
  const escape = service.escape.bind(service);
  service.escape = (text) => escape(text).replace(/<(?=[A-Za-z/!?])/g, "\\<");
  // Checked before the plugin's table rule: a table whose cells hold block content (lists,
  // headings) has no GFM form, so it stays HTML, without the plugin's editor-specific wrapper.
  service.addRule("blockTable", {
    filter: (node) =>
      node.nodeName === "TABLE" && !node.querySelector("table") &&
      node.querySelector("ul, ol, h1, h2, h3, h4, h5, h6, hr, blockquote") !== null,
    replacement: (_content, node) => `\n\n${bareHtml(node)}\n\n`,
  });
  service.addRule("listItem", {
    filter: "li",
    replacement: (content, node, options) => listItem(content, node, options.bulletListMarker),
  });
  service.addRule("fencedCode", {
    filter: (node) => node.nodeName === "PRE",
    replacement: (_content, node) => fenced(node),
  });
  return service;
}

/** An item with one space after its marker, its later lines indented to its text. */
function listItem(content, item, bullet) {
  const list = item.parentNode;
  let marker = `${bullet} `;
  if (list?.nodeName === "OL") {
    const start = Number(list.getAttribute("start") ?? 1) || 1;
    marker = `${start + [...list.children].indexOf(item)}. `;
  }
  const text = content.replace(/^\n+/, "").replace(/\n+$/, "\n")
    .replace(/\n(?=.)/g, `\n${" ".repeat(marker.length)}`);
  const more = item.nextSibling && !text.endsWith("\n");
  return `${marker}${text}${more ? "\n" : ""}`;
}

/** A fence longer than any run of backticks in the code, with the language of the block. */
function fenced(pre) {
  const code = (pre.textContent ?? "").replace(/\n$/, "");
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `\n\n${fence}${languageOf(pre)}\n${code}\n${fence}\n\n`;
}

// Where highlighters note the language: language-x and lang-x (Prism, highlight.js, most
// Markdown renderers), highlight-source-x (GitHub), highlight-x (Sphinx).
const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang|highlight-source|highlight)-([\w#+.-]+)/;
const NO_LANGUAGE = new Set(["default", "none", "plain", "plaintext", "text", "nohighlight"]);

function languageOf(pre) {
  const code = pre.querySelector("code");
  const places = [code, pre, pre.parentElement, pre.parentElement?.parentElement];
  for (const element of places) {
    if (!element) continue;
    const named = element.getAttribute("data-lang") ?? element.getAttribute("data-language") ??
      (element.getAttribute("class") ?? "").match(LANGUAGE_CLASS)?.[1];
    if (named) return NO_LANGUAGE.has(named.toLowerCase()) ? "" : named;
  }
  return "";
}

/** A table as HTML with only the attributes that carry meaning (links, images, spans). */
function bareHtml(table) {
  const kept = new Set(["href", "src", "alt", "colspan", "rowspan"]);
  for (const element of [table, ...table.querySelectorAll("*")]) {
    for (const name of element.getAttributeNames()) {
      if (!kept.has(name)) element.removeAttribute(name);
    }
  }
  return table.outerHTML;
}

function clean(text) {
  return text.replace(/\s+/g, " ").trim();
}

/** A title is one line of text: what Markdown would read as syntax is escaped. */
function escapeLine(text) {
  return text.replace(/([\\`*_[\]<>])/g, "\\$1");
}
