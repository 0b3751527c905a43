/**
 * Takes the pictures of the editor (README, docs/editor.md) at 1280x800, from a real instance against loopback
 * fixtures (testing/editor_instance.ts); no network needed:
 * - docs/editor-light.png and docs/editor-dark.png: a captured page framed on the canvas and a
 *   finished WebP export, in each colour scheme;
 * - docs/editor-own-image.png: the user's own image (a screenshot of the demo page in its dark
 *   scheme) picked with the file input and framed.
 *
 *   deno run -A scripts/editor_screenshots.ts
 */
import type { Browser, Page } from "puppeteer-core";
import { createImageExporter, type ImageExporter } from "../lib/codecs/exporter.ts";
import { captureDownloads, launchChromium } from "../testing/editor_browser.ts";
import { startEditorInstance } from "../testing/editor_instance.ts";
import { pickFile, submit, waitForStatus } from "../testing/editor_page.ts";

const DOCS = new URL("../docs/", import.meta.url);
// Kept small enough for a README: re-encoded losslessly with the service's own PNG encoder.
const MAX_BYTES = 400 * 1024;

type Instance = Awaited<ReturnType<typeof startEditorInstance>>;

async function openEditor(browser: Browser, instance: Instance, scheme: "light" | "dark") {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  // Before loading: the editor pre-selects the viewer's scheme for captures.
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
  await page.goto(`${instance.origin}/`, { waitUntil: "load" });
  // Each picture starts from the defaults, not from the settings the previous one left behind.
  await page.evaluate("localStorage.clear()");
  await page.reload({ waitUntil: "load" });
  return page;
}

async function save(page: Page, exporter: ImageExporter, name: string) {
  await page.evaluate("document.activeElement?.blur(); scrollTo(0, 0)");
  const shot = await page.screenshot({ type: "png" });
  const small = await exporter.export(shot, { format: "png", preset: "high" });
  const file = new URL(name, DOCS);
  await Deno.writeFile(file, small.bytes);
  const kb = (small.bytes.length / 1024).toFixed(0);
  console.log(`${file.pathname}: ${small.width}x${small.height}, ${kb} KB`);
  if (small.bytes.length > MAX_BYTES) console.warn(`  over ${MAX_BYTES / 1024} KB`);
}

/** A screenshot of the demo page in its dark scheme, as a user would have one on disk. */
async function ownScreenshot(browser: Browser, instance: Instance) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 640 });
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
  await page.goto(instance.pageUrl, { waitUntil: "load" });
  const bytes = await page.screenshot({ type: "png" });
  await page.close();
  return bytes;
}

async function main() {
  const instance = await startEditorInstance();
  const temp = await Deno.makeTempDir({ prefix: "shotline-shots-" });
  const browser = await launchChromium();
  const exporter = await createImageExporter();
  try {
    const saver = await captureDownloads(browser, temp);
    for (const scheme of ["light", "dark"] as const) {
      const page = await openEditor(browser, instance, scheme);
      await page.type("#capture-url", instance.pageUrl);
      await submit(page, "#capture-submit");
      await page.select("#export-format", "webp");
      const saved = saver.next();
      await submit(page, "#export-submit");
      await saved;
      await save(page, exporter, `editor-${scheme}.png`);
      await page.close();
    }
    await saver.detach();

    const page = await openEditor(browser, instance, "light");
    const bytes = await ownScreenshot(browser, instance);
    await pickFile(page, { name: "northwind-dark.png", type: "image/png", bytes }, temp);
    await waitForStatus(page, /^Framed northwind-dark\.png/);
    await save(page, exporter, "editor-own-image.png");
    await page.close();
  } finally {
    await browser.close();
    await exporter.close();
    await instance.close();
    await Deno.remove(temp, { recursive: true });
  }
}

if (import.meta.main) await main();
