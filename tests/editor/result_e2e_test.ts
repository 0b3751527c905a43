import assert from "node:assert/strict";
import { launchChromium } from "../../testing/editor_browser.ts";
import { startEditorInstance } from "../../testing/editor_instance.ts";
import {
  flag,
  openEditor,
  pasteFile,
  readCanvas,
  text,
  waitForStatus,
} from "../../testing/editor_page.ts";
import { solidPng } from "../../testing/solid_capturer.ts";

const SHOT = { name: "shot.png", type: "image/png", bytes: solidPng(320, 200, [20, 160, 90]) };

// Runs in the page: what the clipboard holds now, decoded.
const READ_CLIPBOARD = `(async () => {
  const [item] = await navigator.clipboard.read();
  const blob = await item.getType("image/png");
  const bitmap = await createImageBitmap(blob);
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext("2d");
  ctx.drawImage(bitmap, 0, 0);
  const middle = ctx.getImageData(bitmap.width / 2, bitmap.height / 2, 1, 1).data;
  const head = new Uint8Array(await blob.slice(0, 8).arrayBuffer());
  return {
    types: item.types,
    signature: Array.from(head),
    width: bitmap.width,
    height: bitmap.height,
    middle: Array.from(middle.slice(0, 3)),
  };
})()`;

// Every control a user sets, with the id of the element focus lands on.
const CONTROLS = [
  "image-file",
  "capture-url",
  "deviceType-desktop",
  "capture-refresh",
  "capture-submit",
  "take-format",
  "take-download",
  "post-ref",
  "post-submit",
  "background",
  "color-from",
  "color-to",
  "angle",
  "padding",
  "radius",
  "shadow",
  "browser-bar",
  "frame-device",
  "frame-size",
  "fit",
  "copy-api",
  "copy-link",
  "export-format",
  "export-preset",
  "export-submit",
  "copy-image",
];

Deno.test("the result can be copied as PNG, settings survive a reload, and the page works by keyboard and at 375 px", async (t) => {
  const instance = await startEditorInstance();
  const browser = await launchChromium();
  try {
    await browser.defaultBrowserContext().setPermission(
      instance.origin,
      { permission: { name: "clipboard-read" }, state: "granted" },
      { permission: { name: "clipboard-write" }, state: "granted" },
    );
    const { page, watch } = await openEditor(browser, instance.origin);
    await page.bringToFront();

    await t.step("Copy image puts the framed canvas on the clipboard as a PNG", async () => {
      assert.equal(await flag(page, "#copy-image", "disabled"), true, "nothing to copy yet");
      await pasteFile(page, SHOT);
      await waitForStatus(page, /^Framed shot\.png/);
      const canvas = await readCanvas(page, [20, 160, 90]);
      await page.click("#copy-image");
      assert.equal(
        await waitForStatus(page, /^Copied/),
        `Copied the framed image to the clipboard (PNG, ${canvas.width}×${canvas.height}).`,
      );
      const copied = await page.evaluate(READ_CLIPBOARD) as Record<string, unknown>;
      assert.deepEqual(copied, {
        types: ["image/png"],
        signature: [137, 80, 78, 71, 13, 10, 26, 10],
        width: canvas.width,
        height: canvas.height,
        middle: [20, 160, 90],
      });
    });

    await t.step("device, scheme, frame, format and preset survive a reload", async () => {
      await page.click('label[for="deviceType-mobile"]');
      await page.click('label[for="colorScheme-dark"]');
      await page.click('label[for="cardTheme-dark"]');
      await page.select("#background", "gradient");
      await page.focus("#padding");
      await page.keyboard.press("End");
      await page.select("#browser-bar", "auto");
      await page.select("#frame-device", "laptop");
      await page.select("#frame-size", "og");
      await page.select("#fit", "cover");
      await page.select("#export-format", "webp");
      await page.select("#export-preset", "low");
      await page.reload({ waitUntil: "load" });
      const values = await page.evaluate(`(() => ({
        device: document.querySelector('[name="deviceType"]:checked').value,
        scheme: document.querySelector('[name="colorScheme"]:checked').value,
        card: document.querySelector('[name="cardTheme"]:checked').value,
        frame: ["background", "padding", "browser-bar", "frame-device", "frame-size", "fit"]
          .map((id) => document.getElementById(id).value),
        paddingShown: document.getElementById("padding-out").textContent,
        format: document.getElementById("export-format").value,
        preset: document.getElementById("export-preset").value,
        url: document.getElementById("capture-url").value,
      }))()`);
      assert.deepEqual(values, {
        device: "mobile",
        scheme: "dark",
        card: "dark",
        frame: ["gradient", "512", "auto", "laptop", "og", "cover"],
        paddingShown: "512",
        format: "webp",
        preset: "low",
        url: "",
      });
      // A stored value the page cannot hold (a tampered entry, or one from the older frame
      // form: its browser-bar checkbox's true, its "solid" background) is ignored.
      await page.evaluate(`localStorage.setItem("shotline.editor.settings", JSON.stringify({
        format: "gif", padding: "oops", deviceType: "watch", browserBar: true,
        background: "solid" }))`);
      await page.reload({ waitUntil: "load" });
      assert.equal(
        await page.$eval("#export-format", (el) => (el as unknown as { value: string }).value),
        "png",
      );
      assert.equal(await text(page, "#padding-out"), "64");
      const frame = await page.evaluate(`["background", "browser-bar"]
        .map((id) => document.getElementById(id).value)`);
      assert.deepEqual(frame, ["iris", "off"]);
    });

    await t.step("Copy link gives this page with the design; opening it applies it", async () => {
      await page.select("#background", "ocean");
      await page.select("#frame-size", "x");
      await page.click("#copy-link");
      const link = await waitForStatus(page, /^Copied the link/).then(() =>
        page.$eval("#api-request", (el) => el.textContent ?? "")
      );
      // Only what differs from the defaults (fit "contain" is one).
      const design = { background: "ocean", size: "x" };
      assert.equal(link, `${instance.origin}/#frame=${encodeURIComponent(JSON.stringify(design))}`);
      assert.equal(await page.evaluate("navigator.clipboard.readText()"), link);
      // The link wins over the remembered settings; values the form cannot hold are ignored.
      await page.select("#background", "paper");
      const odd = { padding: -5, radius: 30, background: "nope", device: "phone", extra: 1 };
      await page.goto(`${instance.origin}/#frame=${encodeURIComponent(JSON.stringify(odd))}`);
      await page.reload({ waitUntil: "load" });
      const applied = await page.evaluate(`["background", "padding", "radius", "frame-device",
        "frame-size"].map((id) => document.getElementById(id).value)`);
      assert.deepEqual(applied, ["iris", "64", "30", "phone", ""]);
      await page.goto(link);
      await page.reload({ waitUntil: "load" });
      const opened = await page.evaluate(`["background", "frame-size", "fit"]
        .map((id) => document.getElementById(id).value)`);
      assert.deepEqual(opened, ["ocean", "x", "contain"]);
      await page.goto(`${instance.origin}/`);
    });

    await t.step("every control is labelled and reachable with Tab", async () => {
      await pasteFile(page, SHOT);
      await waitForStatus(page, /^Framed shot\.png/);
      // The colours, the angle and the fit take part only in a design that uses them.
      await page.select("#background", "gradient");
      await page.select("#frame-size", "og");
      for (const id of CONTROLS) {
        const label = await page.$eval(`#${id}`, (el) => {
          const labels =
            (el as unknown as { labels: Array<{ textContent: string }> | null }).labels;
          return labels?.[0]?.textContent?.trim() || el.textContent?.trim() || "";
        });
        assert.match(label, /\w/, `#${id} has a visible label`);
      }
      await page.focus("body");
      const reached = new Set<string>();
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press("Tab");
        reached.add(await page.evaluate("document.activeElement?.id") as string);
      }
      for (const id of CONTROLS) assert.ok(reached.has(id), `Tab reaches #${id}`);
    });

    await t.step("at 375 px wide nothing overflows and every control fits", async () => {
      await page.setViewport({ width: 375, height: 740 });
      await page.reload({ waitUntil: "load" });
      await pasteFile(page, SHOT);
      await waitForStatus(page, /^Framed shot\.png/);
      assert.equal(await page.evaluate("document.documentElement.scrollWidth"), 375);
      for (const id of [...CONTROLS, "drop-zone", "canvas"]) {
        // Visually hidden radio inputs are represented by their labels.
        const box = await page.evaluate(`(() => {
          const el = document.getElementById(${JSON.stringify(id)});
          const { left, right, width } = (el.labels?.[0] ?? el).getBoundingClientRect();
          return { left, right, width };
        })()`) as { left: number; right: number; width: number };
        assert.ok(
          box.left >= 0 && box.right <= 375 && box.width > 0,
          `#${id} fits: ${JSON.stringify(box)}`,
        );
      }
    });

    assert.deepEqual(watch.problems, [], "no console error and no failed request");
  } finally {
    await browser.close();
    await instance.close();
  }
});
