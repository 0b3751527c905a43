import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { launchChromium } from "../../testing/editor_browser.ts";
import { startEditorInstance } from "../../testing/editor_instance.ts";
import {
  dragFileOver,
  dropDragged,
  type FileSpec,
  flag,
  framedSize,
  isHidden,
  openEditor,
  pasteFile,
  pickFile,
  readCanvas,
  type Rgb,
  text,
  waitForStatus,
} from "../../testing/editor_page.ts";
import { solidPng } from "../../testing/solid_capturer.ts";

// Small enough that a test file can be over it; the page states and enforces it.
const UPLOAD_LIMIT = 64 * 1024;

const png = (name: string, width: number, height: number, rgb: Rgb): FileSpec => ({
  name,
  type: "image/png",
  bytes: solidPng(width, height, rgb),
});

/** The framed canvas holds `rgb` over (nearly) the whole image, in the default frame. */
async function assertFramed(page: Page, image: { width: number; height: number; rgb: Rgb }) {
  const read = await readCanvas(page, image.rgb);
  assert.equal(read.prefix, "data:image/png;base64,");
  assert.deepEqual([read.width, read.height], framedSize({}, image));
  // Only the rounded corners may differ from the image's colour.
  const area = image.width * image.height;
  assert.ok(read.matching > area * 0.98, `${read.matching} of ${area} pixels are the image's`);
  assert.ok(read.matching <= area);
}

/** Waits for the page's refusal and returns its title and hint. */
async function refusal(page: Page) {
  await page.waitForSelector("#error:not([hidden])");
  return { title: await text(page, "#error-title"), hint: await text(page, "#error-hint") };
}

Deno.test("your own image is framed from a paste, a drop and the file picker; wrong files get a message", async (t) => {
  const instance = await startEditorInstance({ MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT) });
  const dir = await Deno.makeTempDir({ prefix: "shotline-own-image-" });
  const browser = await launchChromium();
  try {
    const { page, watch } = await openEditor(browser, instance.origin);
    assert.equal(
      await text(page, 'label[for="image-file"]'),
      "Image file (PNG, JPEG or WebP, up to 64 KB)",
    );

    await t.step("paste: a ClipboardEvent carrying a PNG file", async () => {
      await pasteFile(page, png("shot.png", 320, 200, [20, 160, 90]));
      assert.equal(
        await waitForStatus(page, /^Framed/),
        "Framed shot.png (320×200, pasted).",
      );
      await assertFramed(page, { width: 320, height: 200, rgb: [20, 160, 90] });
      assert.equal(await flag(page, "#export-submit", "disabled"), false);
      assert.equal(await flag(page, "#copy-image", "disabled"), false);
    });

    await t.step(
      "drop: the preview shows the drop target while a file is dragged over",
      async () => {
        assert.equal(await isHidden(page, "#drop-hint"), true);
        await dragFileOver(page, png("dropped.png", 300, 180, [200, 120, 10]));
        assert.equal(await isHidden(page, "#drop-hint"), false);
        assert.equal(await text(page, "#drop-hint"), "Drop the image to frame it");
        const outline = await page.$eval("#drop-zone", (el) => el.className);
        assert.match(outline, /\bdragging\b/);
        await dropDragged(page);
        assert.equal(
          await waitForStatus(page, /^Framed dropped/),
          "Framed dropped.png (300×180, dropped).",
        );
        assert.equal(await isHidden(page, "#drop-hint"), true, "the target goes away on drop");
        await assertFramed(page, { width: 300, height: 180, rgb: [200, 120, 10] });
      },
    );

    await t.step("file picker: a real file chosen with the labelled input", async () => {
      await pickFile(page, png("picked.png", 240, 150, [40, 60, 220]), dir);
      assert.equal(
        await waitForStatus(page, /^Framed picked/),
        "Framed picked.png (240×150, picked).",
      );
      await assertFramed(page, { width: 240, height: 150, rgb: [40, 60, 220] });
    });

    await t.step("a text file gets a message on the page, by each way in", async () => {
      const notes = {
        name: "notes.txt",
        type: "text/plain",
        bytes: new TextEncoder().encode("hi"),
      };
      await pickFile(page, notes, dir);
      const picked = await refusal(page);
      assert.equal(picked.title, "notes.txt is not an image the editor can frame.");
      assert.match(picked.hint, /PNG, JPEG or WebP/);
      await page.click("#capture-url"); // any later success clears the message
      await pasteFile(page, png("again.png", 120, 80, [20, 160, 90]));
      await waitForStatus(page, /^Framed again\.png/);
      assert.equal(await isHidden(page, "#error"), true);
      // A file that claims to be a PNG by its name and type but is not one by its bytes.
      await dragFileOver(page, { ...notes, name: "fake.png", type: "image/png" });
      await dropDragged(page);
      assert.equal((await refusal(page)).title, "fake.png is not an image the editor can frame.");
      // The canvas still shows the last good image.
      await assertFramed(page, { width: 120, height: 80, rgb: [20, 160, 90] });
    });

    await t.step("a file over the upload limit is refused before it is opened", async () => {
      const big = new Uint8Array(UPLOAD_LIMIT + 10 * 1024);
      big.set(solidPng(2, 2, [1, 2, 3]));
      await pasteFile(page, { name: "big.png", type: "image/png", bytes: big });
      const { title, hint } = await refusal(page);
      assert.equal(title, "big.png is 74.0 KB, over the 64.0 KB upload limit.");
      assert.match(hint, /crop or scale it down/);
    });

    await t.step("text pasted onto the page (not into a field) is not an image", async () => {
      await page.evaluate(`(() => {
        const data = new DataTransfer();
        data.setData("text/plain", "hello");
        document.body.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true }));
      })()`);
      assert.equal((await refusal(page)).title, "The clipboard holds no image.");
    });

    await t.step("a tall image keeps a readable width and the preview scrolls", async () => {
      await pickFile(page, png("tall.png", 300, 1600, [90, 30, 140]), dir);
      await waitForStatus(page, /^Framed tall\.png/);
      await assertFramed(page, { width: 300, height: 1600, rgb: [90, 30, 140] });
      const box = await page.$eval("#drop-zone", (el) => ({
        tall: el.classList.contains("tall"),
        tabIndex: (el as unknown as { tabIndex: number }).tabIndex,
        scrolls: el.scrollHeight > el.clientHeight,
      }));
      assert.deepEqual(box, { tall: true, tabIndex: 0, scrolls: true });
      const shown = await page.$eval("#canvas", (el) => el.getBoundingClientRect().width);
      const [width] = framedSize({}, { width: 300, height: 1600 });
      assert.equal(Math.round(shown), width, "shown at its own width, not shrunk to fit");
    });

    assert.deepEqual(watch.problems, [], "no console error and no failed request");
    assert.deepEqual(watch.pending(), []);
  } finally {
    await browser.close();
    await instance.close();
    await Deno.remove(dir, { recursive: true });
  }
});
