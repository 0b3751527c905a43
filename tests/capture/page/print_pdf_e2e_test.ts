/**
 * The PDF producer (page/print_pdf.ts) on real Chromium with pages served on loopback, judged by
 * poppler's pdfinfo, pdftotext and pdftoppm and by the service's own reader (codecs/pdf_info.ts):
 * paper, orientation, margin, scale, page ranges, backgrounds, text, links, the colour scheme,
 * the media type, one-page PDFs (exactly one page, as tall as the document, whatever its
 * fractions, viewport units, page breaks and @page rules; cut at the cap) and the timeout of a
 * page that never yields.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "puppeteer-core";
import { launchChromium } from "../../../testing/editor_browser.ts";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { pdfInfo, pdfPage, pdfText } from "../../../testing/poppler.ts";
import {
  ARTICLE_BACKGROUND,
  LINK_URL,
  NON_ASCII_TEXT,
  pdfRoutes,
  PRINT_RED,
  SCREEN_GREEN,
} from "../../../testing/pdf_pages.ts";
import { ONE_PAGE_MAX_PX, type Printed, printPdf } from "../../../lib/capture/page/print_pdf.ts";
import { readPdfInfo } from "../../../lib/codecs/pdf_info.ts";
import { PageFailure } from "../../../lib/capture/page/page_failure.ts";
import type { PdfOptions } from "../../../lib/capture/request/output.ts";

const VIEWPORT = { width: 1280, height: 800 };
const PT_PER_PX = 0.75;
const WHITE = [255, 255, 255];

interface Job {
  pdf?: PdfOptions;
  media?: "screen" | "print";
  /** Runs on the page before it loads (emulation the render would have set). */
  prepare?: (page: Page) => Promise<void>;
}

/** Loads `path` in a fresh page, prints it, and checks that our reader agrees with pdfinfo. */
async function printed(browser: Browser, url: string, job: Job = {}): Promise<Printed> {
  const page = await browser.newPage();
  try {
    await page.setViewport(VIEWPORT);
    await job.prepare?.(page);
    await page.goto(url, { waitUntil: "load" });
    const result = await printPdf(page, {
      pdf: job.pdf ?? {},
      media: job.media ?? "screen",
      timeoutMs: 60_000,
    });
    const info = await pdfInfo(result.bytes);
    const ours = readPdfInfo(result.bytes);
    assert.equal(result.pages, info.pages, "pages as pdfinfo counts them");
    assert.equal(ours.pages, info.pages, "pdf_info's count");
    assert.ok(Math.abs(ours.firstPage!.width - info.width) < 0.01, "pdf_info's width");
    assert.ok(Math.abs(ours.firstPage!.height - info.height) < 0.01, "pdf_info's height");
    return result;
  } finally {
    await page.close();
  }
}

function assertNear(actual: number, expected: number, what: string, tolerance = 1) {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);
}

/** The colour at the middle of page 1, at 48 dpi. */
async function middleColour(pdf: Uint8Array): Promise<number[]> {
  const image = await pdfPage(pdf);
  return image.rgb(image.width >> 1, image.height >> 1);
}

Deno.test("printPdf on real Chromium, read by poppler", async (t) => {
  const server = servePages(pdfRoutes());
  const browser = await launchChromium();
  const at = (path: string) => `${server.origin}${path}`;
  try {
    await t.step("A4 portrait by default, Letter, and A4 landscape", async () => {
      for (
        const [pdf, width, height] of [
          [{}, 595.28, 841.89],
          [{ paper: "Letter" }, 612, 792],
          [{ paper: "A4", landscape: true }, 841.89, 595.28],
          [{ paper: "Legal" }, 612, 1008],
        ] as const
      ) {
        const { bytes, pages } = await printed(browser, at("/article"), { pdf });
        const info = await pdfInfo(bytes);
        assert.equal(pages, 1);
        assertNear(info.width, width, `${JSON.stringify(pdf)} width`);
        assertNear(info.height, height, `${JSON.stringify(pdf)} height`);
      }
    });

    await t.step("text is text, beyond ASCII too, and the link is an annotation", async () => {
      const { bytes } = await printed(browser, at("/article"));
      const text = await pdfText(bytes);
      // Runs in other fonts (the CJK fallback) may come out in another order: each is there.
      for (const run of NON_ASCII_TEXT.split(", ")) {
        assert.ok(text.includes(run), `"${run}" in the extracted text: ${text}`);
      }
      assert.ok(text.includes("Read the docs"));
      const raw = new TextDecoder("latin1").decode(bytes);
      assert.ok(raw.includes(`/URI (${LINK_URL})`), "a /URI link annotation");
    });

    await t.step("backgrounds print by default, not with printBackground false", async () => {
      const withBackground = await printed(browser, at("/article"));
      assert.deepEqual(await middleColour(withBackground.bytes), ARTICLE_BACKGROUND);
      const without = await printed(browser, at("/article"), { pdf: { printBackground: false } });
      assert.deepEqual(await middleColour(without.bytes), WHITE);
    });

    await t.step("a margin leaves a white border around the background", async () => {
      const { bytes } = await printed(browser, at("/article"), { pdf: { margin: "1in" } });
      const image = await pdfPage(bytes); // 48 dpi: the margin is 48 px
      assert.deepEqual(image.rgb(20, 20), WHITE, "inside the margin");
      assert.deepEqual(image.rgb(60, image.height - 60), ARTICLE_BACKGROUND, "inside the page");
      assert.deepEqual(image.rgb(image.width - 20, image.height - 20), WHITE);
    });

    await t.step("scale 0.5 fits twice the document on a page", async () => {
      // 10,000 px on A4 (1122.5 px tall): 9 pages at 1x, 5 at 0.5.
      assert.equal((await printed(browser, at("/block"))).pages, 9);
      assert.equal((await printed(browser, at("/block"), { pdf: { scale: 0.5 } })).pages, 5);
    });

    await t.step('pageRanges "2-3" of five pages gives pages 2 and 3', async () => {
      assert.equal((await printed(browser, at("/five"))).pages, 5);
      const { bytes, pages } = await printed(browser, at("/five"), { pdf: { pageRanges: "2-3" } });
      assert.equal(pages, 2);
      const text = await pdfText(bytes);
      assert.deepEqual(text.match(/SECTION-\d/g), ["SECTION-2", "SECTION-3"]);
    });

    await t.step("120 pages: Skia's page tree nested in eights, counted at its root", async () => {
      // printed() checks codecs/pdf_info.ts against pdfinfo; the first /Count in the file is 8.
      const { pages } = await printed(browser, at("/five?n=120"));
      assert.equal(pages, 120);
    });

    await t.step("the dark colour scheme set on the page prints dark", async () => {
      const dark = await printed(browser, at("/"), {
        prepare: (page) =>
          page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]),
      });
      assert.deepEqual(await middleColour(dark.bytes), [0, 0, 0]);
      assert.deepEqual(await middleColour((await printed(browser, at("/"))).bytes), WHITE);
      const darkPrint = await printed(browser, at("/"), {
        media: "print",
        prepare: (page) =>
          page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]),
      });
      assert.deepEqual(await middleColour(darkPrint.bytes), [0, 0, 0], "dark with media print");
    });

    await t.step(
      "media screen prints the screen's styles, media print the print ones",
      async () => {
        const screen = await printed(browser, at("/media"), { media: "screen" });
        assert.deepEqual(await middleColour(screen.bytes), SCREEN_GREEN);
        const print = await printed(browser, at("/media"), { media: "print" });
        assert.deepEqual(await middleColour(print.bytes), PRINT_RED);
      },
    );

    await t.step("onePage: one page, the viewport's width, the document's height", async () => {
      for (const height of [700, 5_000, 20_000]) {
        const result = await printed(browser, at(`/tall?h=${height}`), { pdf: { onePage: true } });
        const info = await pdfInfo(result.bytes);
        assert.deepEqual([result.pages, result.truncated], [1, false], `${height} px`);
        assertNear(info.width, VIEWPORT.width * PT_PER_PX, `${height} px: width`);
        assertNear(info.height, Math.max(height, VIEWPORT.height) * PT_PER_PX, `${height} px`);
        assert.match(await pdfText(result.bytes), /TOP-MARK[\s\S]*BOTTOM-MARK/);
      }
    });

    await t.step(
      "onePage: a fractional height, a 100vh hero, breaks and @page rules: one page",
      async () => {
        const fraction = await printed(browser, at("/fraction"), { pdf: { onePage: true } });
        assert.equal(fraction.pages, 1);
        assertNear((await pdfInfo(fraction.bytes)).height, 1001 * PT_PER_PX, "1000.4 px");
        const hero = await printed(browser, at("/hero"), { pdf: { onePage: true } });
        assert.equal(hero.pages, 1);
        assertNear((await pdfInfo(hero.bytes)).height, 2800 * PT_PER_PX, "800 px hero + 2000 px");
        assert.match(await pdfText(hero.bytes), /HERO-MARK[\s\S]*REST-MARK[\s\S]*BOTTOM-MARK/);
        const breaks = await printed(browser, at("/breaks"), { pdf: { onePage: true } });
        assert.equal(breaks.pages, 1);
        assert.match(
          await pdfText(breaks.bytes),
          /CHAPTER-1[\s\S]*CHAPTER-2[\s\S]*CHAPTER-3[\s\S]*BOTTOM-MARK/,
        );
        assertNear((await pdfInfo(breaks.bytes)).width, VIEWPORT.width * PT_PER_PX, "@page size");
      },
    );

    await t.step("onePage: margin and scale size the paper around the page", async () => {
      const pdf = { onePage: true, margin: "1in", scale: 0.5 };
      const result = await printed(browser, at("/tall?h=4000"), { pdf });
      const info = await pdfInfo(result.bytes);
      assert.equal(result.pages, 1);
      assertNear(info.width, (VIEWPORT.width * 0.5 + 192) * PT_PER_PX, "width");
      assertNear(info.height, (4000 * 0.5 + 192) * PT_PER_PX, "height");
    });

    await t.step(`onePage past ${ONE_PAGE_MAX_PX} px is cut there, truncated`, async () => {
      const result = await printed(browser, at("/tall?h=40000"), { pdf: { onePage: true } });
      assert.deepEqual([result.pages, result.truncated], [1, true]);
      assertNear((await pdfInfo(result.bytes)).height, ONE_PAGE_MAX_PX * PT_PER_PX, "the cap");
      const text = await pdfText(result.bytes);
      assert.ok(text.includes("TOP-MARK") && !text.includes("BOTTOM-MARK"), "cut below");
    });

    await t.step("a page that never yields fails as no_paint within the timeout", async () => {
      const page = await browser.newPage();
      await page.goto(at("/article"));
      await page.evaluate("setTimeout(() => { for (;;) {} }, 0)");
      await assert.rejects(
        printPdf(page, { pdf: {}, media: "screen", timeoutMs: 2_000 }),
        (error) => error instanceof PageFailure && error.detail.kind === "no_paint",
      );
      // Its renderer never answers again: the browser's close below ends it.
    });
  } finally {
    await browser.close();
    await server.close();
  }
});
