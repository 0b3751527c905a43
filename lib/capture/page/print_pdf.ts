/**
 * A loaded, settled page printed to PDF by Chromium: paginated on paper for print, or the whole
 * page on one page as wide as the viewport and as tall as the document (onePage). Text stays
 * text and links stay links; the page's emulation (colour scheme, viewport) applies, and the
 * request's media type decides which stylesheet prints.
 */
import type { Page } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";
import { readPdfInfo } from "../../codecs/pdf_info.ts";
import { DEFAULT_PDF, marginPx, type PdfOptions } from "../request/output.ts";
import { MAX_CAPTURE_SIDE } from "../request/options.ts";
import { PageFailure } from "./page_failure.ts";
import { emulateMedia } from "./emulation.ts";
import type { ColorScheme } from "../types.ts";

/**
 * The tallest one-page PDF, in CSS px of paper (24,575 pt, 341 in): the full-page screenshot's
 * cap, so a one-page PDF holds what a full-page image does. Chromium itself fails to print a
 * page taller than 65,535 pt (87,380 px: "Printing failed"), and a taller vector page costs
 * next to nothing more (50,000 px of it printed in about 0.1 s), so the cap is about the
 * document, not the printer.
 */
export const ONE_PAGE_MAX_PX = MAX_CAPTURE_SIDE;

// The viewport is made this much taller for a moment to find what is sized by it (see
// pinViewportHeights); any change shows, the amount only has to be more than rounding.
const PROBE_EXTRA_PX = 200;

export interface PrintRequest {
  pdf: PdfOptions;
  /** Which stylesheet prints: the screen's (the PDF looks like the screenshot) or the print one. */
  media: "screen" | "print";
  /** The print's bound: past it the page is taken as one that never paints. */
  timeoutMs: number;
}

export interface Printed {
  bytes: Uint8Array;
  pages: number;
  /** A one-page PDF was cut at ONE_PAGE_MAX_PX: what lies below is not on the page. */
  truncated: boolean;
}

/**
 * Prints the page as `request.pdf` says. A page that does not finish within the timeout (its
 * main thread never yields, so it cannot lay out for print) throws PageFailure no_paint.
 */
export async function printPdf(page: Page, request: PrintRequest): Promise<Printed> {
  const pdf = { ...DEFAULT_PDF, ...request.pdf };
  const margin = marginPx(pdf.margin) ?? 0;
  const margins = { top: margin, right: margin, bottom: margin, left: margin };
  const print = async () => {
    await printMedia(page, request.media);
    const base = {
      printBackground: pdf.printBackground,
      scale: pdf.scale,
      margin: margins,
      // An accessible PDF (its structure tree tags headings, lists, tables and reading order),
      // as Chromium prints by default; it costs: a 400-row table took twice the time and 15
      // times the bytes of an untagged one (bench/pdf.ts).
      tagged: true,
    };
    if (!pdf.onePage) {
      const bytes = await page.pdf({
        ...base,
        format: pdf.paper,
        landscape: pdf.landscape,
        ...(request.pdf.pageRanges ? { pageRanges: request.pdf.pageRanges } : {}),
        timeout: 0, // bounded below
      });
      return { bytes, truncated: false };
    }
    const sheet = await onePageSheet(page, { scale: pdf.scale, margin });
    // Page 1 only: a layout a fraction of a px taller in print than measured would otherwise
    // spill a sliver onto an empty second page.
    const bytes = await page.pdf({
      ...base,
      width: `${sheet.width}px`,
      height: `${sheet.height}px`,
      pageRanges: "1",
      timeout: 0, // bounded below
    });
    return { bytes, truncated: sheet.truncated };
  };
  const printed = await withTimeout(
    print(),
    request.timeoutMs,
    () => new PageFailure({ kind: "no_paint" }),
  );
  const bytes = new Uint8Array(printed.bytes);
  return { bytes, pages: readPdfInfo(bytes).pages, truncated: printed.truncated };
}

// Runs in the page: the media features the capture emulates (emulation.ts), as they are now.
const EMULATED_FEATURES = `() => ({
  colorScheme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
  reducedMotion: matchMedia("(prefers-reduced-motion: reduce)").matches,
})`;

/** Sets the media type the PDF prints with, keeping the features the page runs with. */
async function printMedia(page: Page, media: "screen" | "print"): Promise<void> {
  const features = await page.evaluate(`(${EMULATED_FEATURES})()`) as {
    colorScheme: ColorScheme;
    reducedMotion: boolean;
  };
  await emulateMedia(page, { media, ...features });
}

/**
 * The paper of a one-page PDF in CSS px: the viewport's width and the document's height (at most
 * the cap), both scaled, plus the margins. The page is made to lay out in print as it does on
 * screen first: its viewport-sized boxes pinned, its forced page breaks and page margins lifted.
 */
async function onePageSheet(
  page: Page,
  layout: { scale: number; margin: number },
): Promise<{ width: number; height: number; truncated: boolean }> {
  const { scale, margin } = layout;
  await pinViewportHeights(page);
  await page.evaluate(`(${ONE_PAGE_SHEET})(${margin})`);
  const viewportWidth = page.viewport()?.width ??
    await page.evaluate("document.documentElement.clientWidth") as number;
  const documentHeight = await page.evaluate(`(${DOCUMENT_HEIGHT})()`) as number;
  const cap = Math.floor(ONE_PAGE_MAX_PX / scale);
  const height = Math.max(1, Math.min(documentHeight, cap));
  return {
    width: Math.ceil(viewportWidth * scale) + 2 * margin,
    height: Math.ceil(height * scale) + 2 * margin,
    truncated: documentHeight > cap,
  };
}

// Runs in the page: the document's height in whole CSS px. scrollHeight is rounded to the
// nearest px, so a document 1000.4 px tall would measure 1000 and spill onto a second page; its
// box's fractional bottom is taken up too.
const DOCUMENT_HEIGHT = `() => {
  const root = document.documentElement;
  const body = document.body;
  return Math.ceil(Math.max(root.scrollHeight, body ? body.scrollHeight : 0,
    root.getBoundingClientRect().bottom + scrollY));
}`;

// Runs in the page: lifts forced page breaks, so one page stays one, and sets the paper's size
// and margin to the requested ones: the page's own @page size or margins would shrink the
// content area, and the document, laid out narrower and taller, would run off the page. A
// constructed sheet, which the page's Content-Security-Policy does not govern.
const ONE_PAGE_SHEET = `(margin) => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync("* { break-before: auto !important; break-after: auto !important;" +
    " break-inside: auto !important; }" +
    ["", ":first", ":left", ":right", ":blank"]
      .map((pages) => " @page " + pages + " { size: auto !important; margin: " + margin +
        "px !important; }").join(""));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}`;

// Runs in the page before the viewport grows: notes every element's border-box height.
const NOTE_HEIGHTS = `() => {
  const elements = Array.from(document.querySelectorAll("body, body *"));
  const heights = elements.map((el) => el.getBoundingClientRect().height);
  Object.defineProperty(window, "__shotlineNotedHeights", {
    value: { elements, heights },
    configurable: true,
  });
}`;

// Runs in the page once the viewport grew: pins each noted element whose height followed the
// viewport's at the height it had before.
const PIN_CHANGED_HEIGHTS = `() => {
  const { elements, heights } = window.__shotlineNotedHeights;
  delete window.__shotlineNotedHeights;
  const changed = elements.flatMap((el, i) =>
    Math.abs(el.getBoundingClientRect().height - heights[i]) >= 0.5 ? [i] : []);
  for (const i of changed) {
    const el = elements[i];
    const height = heights[i] + "px";
    el.style.setProperty("box-sizing", "border-box", "important");
    for (const name of ["height", "min-height", "max-height"]) {
      el.style.setProperty(name, height, "important");
    }
  }
  return changed.length;
}`;

/**
 * In print, viewport units resolve against the paper: a 100vh hero would grow as tall as the
 * one page and push the rest onto a second. The boxes that follow the viewport's height (found
 * by growing it for a moment) keep the height they have on screen.
 */
async function pinViewportHeights(page: Page): Promise<void> {
  const viewport = page.viewport();
  if (!viewport) return;
  await page.evaluate(`(${NOTE_HEIGHTS})()`);
  await page.setViewport({ ...viewport, height: viewport.height + PROBE_EXTRA_PX });
  try {
    // All measured before any is pinned: pinning one changes its ancestors' heights.
    await page.evaluate(`(${PIN_CHANGED_HEIGHTS})()`);
  } finally {
    await page.setViewport(viewport);
  }
}
