/**
 * The editor's browser bar: a capture framed with its page's title and icon above it, drawn from
 * the capture's own answer so the canvas stays readable; off by default, remembered when on.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { launchChromium } from "../../testing/editor_browser.ts";
import { ICON_BLUE, startEditorInstance } from "../../testing/editor_instance.ts";
import { openEditor, readCanvas, submit, text } from "../../testing/editor_page.ts";

// The frame's default padding is 6 % of the image's width on each side.
const framed = (pixels: number) => pixels + 2 * Math.round((pixels * 6) / 100);
// The bar is 44 px of a 1000 px wide image: 84 px on a 1920 px capture.
const BAR_1920 = Math.round(44 * 1.92);
const BAR_GREY: [number, number, number] = [0xe8, 0xea, 0xee];
const CLOSE_RED: [number, number, number] = [0xff, 0x5f, 0x57];

/** The canvas size. */
const size = (page: Page) =>
  page.evaluate(`(() => {
    const c = document.getElementById("canvas");
    return [c.width, c.height];
  })()`);

Deno.test("the browser bar frames a capture with its page's title and icon", async (t) => {
  const instance = await startEditorInstance();
  const browser = await launchChromium();
  try {
    const { page, watch } = await openEditor(browser, instance.origin);
    /** The `page` of every capture answer the editor received. */
    const answers: {
      title: string | null;
      favicon: string | null;
      faviconData: string | null;
    }[] = [];
    page.on("response", (response) => {
      if (!response.url().endsWith("/api/screenshot") || response.status() !== 200) return;
      void response.json().then((body) => answers.push(body.page), () => {});
    });

    await t.step("off by default: the capture is framed as before", async () => {
      await page.type("#capture-url", instance.pageUrl);
      await submit(page, "#capture-submit");
      assert.match(await text(page, "#status"), /^Captured .* \(1920×1080, fresh\)\.$/);
      assert.deepEqual(await size(page), [framed(1920), framed(1920) - 1920 + 1080]);
      assert.equal(answers.at(-1)?.title, "Northwind Analytics");
      assert.equal(answers.at(-1)?.favicon, `${new URL(instance.pageUrl).origin}/favicon.ico`);
      assert.match(answers.at(-1)?.faviconData ?? "", /^data:image\/svg\+xml;base64,/);
      assert.equal((await readCanvas(page, ICON_BLUE)).matching, 0, "no icon without the bar");
    });

    await t.step("on: a bar above the capture, the canvas still readable", async () => {
      await page.click("#browser-bar");
      const [width, height] = await size(page) as number[];
      assert.deepEqual([width, height], [framed(1920), framed(1920) - 1920 + 1080 + BAR_1920]);
      const grey = await readCanvas(page, BAR_GREY);
      assert.equal(grey.prefix, "data:image/png;base64,", "not tainted");
      // Most of the bar is its grey: all but the buttons, the icon and the title.
      assert.ok(grey.matching > 0.8 * 1920 * BAR_1920, `${grey.matching} grey pixels`);
      assert.ok((await readCanvas(page, CLOSE_RED)).matching > 100, "window buttons drawn");
      // The page's own icon, from the capture's answer: a 38 px tile, mostly blue.
      const icon = (await readCanvas(page, ICON_BLUE)).matching;
      assert.ok(icon > 0.4 * 38 * 38 && icon < 38 * 38, `${icon} icon pixels`);
    });

    await t.step("the choice survives a reload", async () => {
      await page.reload({ waitUntil: "load" });
      const checked = await page.evaluate(`document.getElementById("browser-bar").checked`);
      assert.equal(checked, true);
    });

    assert.deepEqual(watch.problems, [], "no console error and no failed request");
  } finally {
    await browser.close();
    await instance.close();
  }
});
