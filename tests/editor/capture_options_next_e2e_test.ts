/**
 * The editor's newer capture controls: named device, width and height, transparent, chat
 * widgets and custom CSS are sent only when set, the preview is framed at the device's pixel
 * ratio, and the choices survive a reload.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { launchChromium } from "../../testing/editor_browser.ts";
import { startEditorInstance } from "../../testing/editor_instance.ts";
import { captureBodies, openEditor, submit, text, typeInto } from "../../testing/editor_page.ts";

/** The newer controls as the page shows them. */
function controls(page: Page) {
  return page.evaluate(`(() => {
    const value = (id) => document.getElementById(id).value;
    const checked = (id) => document.getElementById(id).checked;
    return {
      device: value("capture-device"),
      width: value("capture-width"),
      height: value("capture-height"),
      transparent: checked("capture-transparent"),
      hideAnnoyances: checked("capture-hide-annoyances"),
      styles: value("capture-styles"),
    };
  })()`);
}

const plain = (url: string) => ({
  url,
  deviceType: "desktop",
  colorScheme: "light",
  forceRefresh: false,
});

Deno.test("the editor sends device, size, transparent and custom CSS only when set", async (t) => {
  const instance = await startEditorInstance();
  const browser = await launchChromium();
  try {
    const { page, watch } = await openEditor(browser, instance.origin);
    const bodies = captureBodies(page);

    await t.step("width and height give a 1440x900 capture", async () => {
      await page.type("#capture-url", instance.pageUrl);
      await page.type("#capture-width", "1440");
      await page.type("#capture-height", "900");
      await submit(page, "#capture-submit");
      assert.deepEqual(bodies.at(-1), { ...plain(instance.pageUrl), width: 1440, height: 900 });
      assert.match(await text(page, "#status"), /^Captured .* \(1440×900, fresh\)\.$/);
    });

    await t.step("a named device, transparent and CSS are sent as chosen", async () => {
      await typeInto(page, "#capture-width", "");
      await typeInto(page, "#capture-height", "");
      await page.select("#capture-device", "iphone-15");
      await page.click("#capture-transparent");
      await page.type("#capture-styles", "body { margin: 0 }");
      await submit(page, "#capture-submit");
      assert.deepEqual(bodies.at(-1), {
        ...plain(instance.pageUrl),
        device: "iphone-15",
        transparent: true,
        styles: "body { margin: 0 }",
      });
      assert.match(await text(page, "#status"), /^Captured .* \(1179×2556, fresh\)\.$/);
      const cssWidth = await page.evaluate(
        `document.getElementById("canvas").style.getPropertyValue("--css-width")`,
      );
      assert.ok(Number.parseFloat(String(cssWidth)) < 1179, "framed at the device's ratio");
    });

    await t.step("the choices survive a reload", async () => {
      const before = await controls(page);
      assert.deepEqual(before, {
        device: "iphone-15",
        width: "",
        height: "",
        transparent: true,
        hideAnnoyances: false,
        styles: "body { margin: 0 }",
      });
      await page.reload({ waitUntil: "load" });
      assert.deepEqual(await controls(page), before);
    });

    assert.deepEqual(watch.problems, [], "no console error and no failed request");
  } finally {
    await browser.close();
    await instance.close();
  }
});
