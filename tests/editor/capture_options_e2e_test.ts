import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { launchChromium } from "../../testing/editor_browser.ts";
import { startEditorInstance, TALL_PAGE_PX } from "../../testing/editor_instance.ts";
import {
  captureBodies,
  framedSize,
  isHidden,
  openEditor,
  submit,
  text,
  typeInto,
  waitForFrame,
} from "../../testing/editor_page.ts";

const CHECKBOXES = {
  fullPage: "#capture-full-page",
  hideCookieBanners: "#capture-hide-cookies",
  blockAds: "#capture-block-ads",
};

/** The canvas's pixel size, its size on screen, and whether the preview scrolls. */
async function preview(page: Page) {
  await waitForFrame(page);
  return await page.evaluate(`(() => {
    const canvas = document.getElementById("canvas");
    const wrap = document.getElementById("drop-zone");
    const box = canvas.getBoundingClientRect();
    return {
      width: canvas.width,
      height: canvas.height,
      shownWidth: Math.round(box.width),
      tall: wrap.classList.contains("tall"),
      scrolls: wrap.scrollHeight > wrap.clientHeight,
    };
  })()`) as Promise<
    { width: number; height: number; shownWidth: number; tall: boolean; scrolls: boolean }
  >;
}

/** Which of the new controls are set, as the page shows them. */
function controls(page: Page) {
  return page.evaluate(`(() => {
    const checked = (id) => document.getElementById(id).checked;
    return {
      scale: document.querySelector('input[name="scale"]:checked').value,
      fullPage: checked("capture-full-page"),
      hideCookieBanners: checked("capture-hide-cookies"),
      blockAds: checked("capture-block-ads"),
    };
  })()`);
}

/** Toggles a checkbox from the keyboard. */
async function toggle(page: Page, selector: string) {
  await page.focus(selector);
  await page.keyboard.press("Space");
}

/** The body of a plain desktop, light capture of `url`. */
const plain = (url: string) => ({
  url,
  deviceType: "desktop",
  colorScheme: "light",
  forceRefresh: false,
});

/** The default frame's size around a capture of `width` x `height` at `pixelRatio`. */
const framed = (width: number, height: number, pixelRatio = 1) =>
  framedSize({}, { width, height, pixelRatio });

Deno.test("the editor sends full page, scale, cookie banner and ad options only when set", async (t) => {
  const instance = await startEditorInstance();
  const browser = await launchChromium();
  try {
    const { page, watch } = await openEditor(browser, instance.origin);
    const bodies = captureBodies(page);
    let plainShownWidth = 0;

    await t.step("a plain capture sends none of the new fields", async () => {
      await page.type("#capture-url", instance.pageUrl);
      await submit(page, "#capture-submit");
      assert.match(await text(page, "#status"), /^Captured .* \(1920×1080, fresh\)\.$/);
      assert.deepEqual(bodies.at(-1), plain(instance.pageUrl));
      const shown = await preview(page);
      assert.equal(shown.width, framed(1920, 1080)[0]);
      plainShownWidth = shown.shownWidth;
    });

    await t.step("Full page (ticked from the keyboard) frames the whole tall page", async () => {
      await toggle(page, CHECKBOXES.fullPage);
      await typeInto(page, "#capture-url", instance.tallPageUrl);
      await submit(page, "#capture-submit");
      assert.deepEqual(bodies.at(-1), { ...plain(instance.tallPageUrl), fullPage: true });
      assert.match(
        await text(page, "#status"),
        new RegExp(`^Captured .* \\(1920×${TALL_PAGE_PX}, fresh\\)\\.$`),
      );
      const shown = await preview(page);
      assert.deepEqual([shown.width, shown.height], framed(1920, TALL_PAGE_PX));
      assert.ok(shown.height / shown.width > 1080 / 1920, "taller than the viewport's aspect");
      assert.ok(shown.tall && shown.scrolls, "the preview scrolls instead of shrinking it");
      await toggle(page, CHECKBOXES.fullPage);
    });

    await t.step("2x sends scale: 2 and frames twice the pixels at the same size", async () => {
      // Arrow keys move through the radio group, as in any segmented control.
      await page.focus("#scale-1");
      await page.keyboard.press("ArrowRight");
      await toggle(page, CHECKBOXES.hideCookieBanners);
      await typeInto(page, "#capture-url", instance.pageUrl);
      await submit(page, "#capture-submit");
      assert.deepEqual(bodies.at(-1), {
        ...plain(instance.pageUrl),
        scale: 2,
        hideCookieBanners: true,
      });
      assert.match(await text(page, "#status"), /^Captured .* \(3840×2160, fresh\)\.$/);
      const shown = await preview(page);
      const [width, height] = framed(3840, 2160, 2);
      assert.deepEqual([shown.width, shown.height], [width, height]);
      assert.equal(shown.shownWidth, plainShownWidth, "shown like the 1x capture");
      const cssWidth = await page.evaluate(
        `document.getElementById("canvas").style.getPropertyValue("--css-width")`,
      );
      assert.equal(cssWidth, `${width / 2}px`, "laid out at its size in CSS pixels");
      // The export starts from every pixel of the canvas, not from what the screen shows.
      await page.select("#export-format", "jpeg");
      await submit(page, "#export-submit");
      const size = `${width}×${height}`;
      assert.match(await text(page, "#export-result"), new RegExp(`, ${size}\\)\\.$`));
    });

    await t.step("a mobile 2x capture is shown at the size of the mobile 1x one", async () => {
      // Tall enough that neither capture is shrunk to fit the window's height.
      await page.setViewport({ width: 1280, height: 1600 });
      await page.click('label[for="deviceType-mobile"]');
      await page.focus("#scale-2");
      await page.keyboard.press("ArrowLeft");
      await submit(page, "#capture-submit");
      assert.equal(bodies.at(-1)?.scale, undefined);
      const one = await preview(page);
      assert.equal(one.width, framed(375, 667)[0]);
      await page.focus("#scale-1");
      await page.keyboard.press("ArrowRight");
      await submit(page, "#capture-submit");
      assert.equal(bodies.at(-1)?.scale, 2);
      const two = await preview(page);
      assert.equal(two.width, framed(750, 1334, 2)[0]);
      assert.ok(Math.abs(two.shownWidth - one.shownWidth) <= 1, `${two.shownWidth} px shown`);
      await page.setViewport({ width: 1280, height: 800 });
    });

    await t.step("Block ads without a filter list shows the 503 envelope", async () => {
      await toggle(page, CHECKBOXES.blockAds);
      watch.expect(503, "/api/screenshot");
      const answered = page.waitForResponse((res) => res.url().endsWith("/api/screenshot"));
      await page.click("#capture-submit");
      const res = await answered;
      assert.equal(res.status(), 503);
      const envelope = await res.json();
      assert.equal(bodies.at(-1)?.blockAds, true);
      await page.waitForSelector("#error:not([hidden])");
      assert.equal(await text(page, "#error-title"), envelope.error);
      assert.ok(envelope.hint, "the envelope has a hint");
      assert.equal(await text(page, "#error-hint"), envelope.hint);
      assert.equal(await isHidden(page, "#canvas"), false, "the last image stays");
    });

    await t.step(
      "the new settings survive a reload; unusable stored values are ignored",
      async () => {
        const before = await controls(page);
        assert.deepEqual(before, {
          scale: "2",
          fullPage: false,
          hideCookieBanners: true,
          blockAds: true,
        });
        await page.reload({ waitUntil: "load" });
        assert.deepEqual(await controls(page), before);
        await page.evaluate(`localStorage.setItem("shotline.editor.settings", JSON.stringify({
        scale: "5", fullPage: "yes", blockAds: 1, hideCookieBanners: true }))`);
        await page.reload({ waitUntil: "load" });
        assert.deepEqual(await controls(page), {
          scale: "1",
          fullPage: false,
          hideCookieBanners: true,
          blockAds: false,
        });
      },
    );

    await t.step("at 375 px wide every control fits without sideways scrolling", async () => {
      await page.setViewport({ width: 375, height: 667 });
      const widths = await page.evaluate(`(() => {
        const right = (sel) => document.querySelector(sel).getBoundingClientRect().right;
        return { page: document.documentElement.scrollWidth, controls: Math.max(
          right('label[for="scale-3"]'), right("#capture-block-ads"),
          right("#capture-hide-cookies"), right("#capture-full-page")) };
      })()`) as { page: number; controls: number };
      assert.ok(widths.page <= 375, `page ${widths.page} px wide`);
      assert.ok(widths.controls <= 375, `controls end at ${widths.controls} px`);
    });

    assert.deepEqual(watch.problems, [], "no console error and no failed request");
    assert.deepEqual(watch.pending(), []);
  } finally {
    await browser.close();
    await instance.close();
  }
});
