/**
 * The editor's browser bar: a capture framed with its page's title and icon above it, drawn from
 * the capture's own answer so the canvas stays readable; off by default, each style (light,
 * dark, auto) drawn in its colour, remembered when chosen.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { launchChromium } from "../../testing/editor_browser.ts";
import { ICON_BLUE, startEditorInstance } from "../../testing/editor_instance.ts";
import {
  framedSize,
  openEditor,
  readCanvas,
  submit,
  text,
  waitForFrame,
} from "../../testing/editor_page.ts";

const CAPTURE = { width: 1920, height: 1080 };
const BAR_LIGHT: [number, number, number] = [0xe8, 0xea, 0xee];
const BAR_DARK: [number, number, number] = [0x2b, 0x2d, 0x33];
const CLOSE_RED: [number, number, number] = [0xff, 0x5f, 0x57];

/** The canvas size. */
async function size(page: Page) {
  await waitForFrame(page);
  return await page.evaluate(`(() => {
    const c = document.getElementById("canvas");
    return [c.width, c.height];
  })()`);
}

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

    await t.step("off by default: the capture is framed without a bar", async () => {
      assert.equal(
        await page.$eval("#browser-bar", (el) => (el as unknown as { value: string }).value),
        "off",
      );
      await page.type("#capture-url", instance.pageUrl);
      await submit(page, "#capture-submit");
      assert.match(await text(page, "#status"), /^Captured .* \(1920×1080, fresh\)\.$/);
      assert.deepEqual(await size(page), framedSize({}, CAPTURE));
      assert.equal(answers.at(-1)?.title, "Northwind Analytics");
      assert.equal(answers.at(-1)?.favicon, `${new URL(instance.pageUrl).origin}/favicon.ico`);
      assert.match(answers.at(-1)?.faviconData ?? "", /^data:image\/svg\+xml;base64,/);
      assert.equal((await readCanvas(page, ICON_BLUE)).matching, 0, "no icon without the bar");
    });

    await t.step("light: a bar above the capture, the canvas still readable", async () => {
      await page.select("#browser-bar", "light");
      const [width, height] = await size(page) as number[];
      const [plainWidth, plainHeight] = framedSize({}, CAPTURE);
      assert.deepEqual([width, height], framedSize({ browserBar: "light" }, CAPTURE));
      const barHeight = height - plainHeight;
      assert.equal(width, plainWidth);
      assert.ok(barHeight >= 30 && barHeight <= 60, `a ${barHeight} px bar`);
      const grey = await readCanvas(page, BAR_LIGHT);
      assert.equal(grey.prefix, "data:image/png;base64,", "not tainted");
      // Most of the bar is its grey: all but the buttons, the icon and the title.
      assert.ok(grey.matching > 0.8 * 1920 * barHeight, `${grey.matching} grey pixels`);
      assert.ok((await readCanvas(page, CLOSE_RED)).matching > 50, "window buttons drawn");
      // The page's own icon, from the capture's answer: a tile of about 0.45 bar, mostly blue.
      const side = Math.round(barHeight * 0.45);
      const icon = (await readCanvas(page, ICON_BLUE)).matching;
      assert.ok(icon > 0.4 * side * side && icon <= side * side, `${icon} icon pixels`);
    });

    await t.step("dark: the same bar in the dark style's colour", async () => {
      await page.select("#browser-bar", "dark");
      const dark = await readCanvas(page, BAR_DARK);
      const [, plainHeight] = framedSize({}, CAPTURE);
      const barHeight = dark.height - plainHeight;
      assert.ok(dark.matching > 0.8 * 1920 * barHeight, `${dark.matching} dark pixels`);
      assert.equal((await readCanvas(page, BAR_LIGHT)).matching, 0, "no light bar left");
    });

    await t.step("the choice survives a reload", async () => {
      await page.reload({ waitUntil: "load" });
      const value = await page.$eval(
        "#browser-bar",
        (el) => (el as unknown as { value: string }).value,
      );
      assert.equal(value, "dark");
    });

    assert.deepEqual(watch.problems, [], "no console error and no failed request");
  } finally {
    await browser.close();
    await instance.close();
  }
});
