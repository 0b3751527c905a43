/**
 * Takes docs/editor-light.png and docs/editor-dark.png: the editor at 1280x800 with a captured
 * page framed on the canvas and a finished WebP export, in each colour scheme. Runs a real
 * instance against loopback fixtures (tests/fixtures/editor_instance.ts); no network needed.
 *
 *   deno run -A scripts/editor_screenshots.ts
 */
import type { Page } from "puppeteer-core";
import { createImageExporter } from "../lib/codecs/exporter.ts";
import { captureDownloads, launchChromium } from "../tests/fixtures/editor_browser.ts";
import { startEditorInstance } from "../tests/fixtures/editor_instance.ts";

const DOCS = new URL("../docs/", import.meta.url);
// Kept small enough for a README: re-encoded losslessly with the service's own PNG encoder.
const MAX_BYTES = 400 * 1024;

async function submit(page: Page, button: string) {
  await page.click(button);
  await page.waitForSelector('#stage[aria-busy="false"]', { timeout: 60_000 });
}

async function main() {
  const instance = await startEditorInstance();
  const downloads = await Deno.makeTempDir({ prefix: "shotline-shots-" });
  const browser = await launchChromium();
  const exporter = await createImageExporter();
  try {
    const saver = await captureDownloads(browser, downloads);
    for (const scheme of ["light", "dark"] as const) {
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      // Before loading: the editor pre-selects the viewer's scheme for captures.
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      await page.goto(`${instance.origin}/`, { waitUntil: "load" });
      await page.type("#capture-url", instance.pageUrl);
      await submit(page, "#capture-submit");
      await page.select("#export-format", "webp");
      const saved = saver.next();
      await submit(page, "#export-submit");
      await saved;
      await page.evaluate("document.activeElement?.blur(); scrollTo(0, 0)");
      const shot = await page.screenshot({ type: "png" });
      const small = await exporter.export(shot, { format: "png", preset: "high" });
      const file = new URL(`editor-${scheme}.png`, DOCS);
      await Deno.writeFile(file, small.bytes);
      const kb = (small.bytes.length / 1024).toFixed(0);
      console.log(`${file.pathname}: ${small.width}x${small.height}, ${kb} KB`);
      if (small.bytes.length > MAX_BYTES) console.warn(`  over ${MAX_BYTES / 1024} KB`);
      await page.close();
    }
    await saver.detach();
  } finally {
    await browser.close();
    await exporter.close();
    await instance.close();
    await Deno.remove(downloads, { recursive: true });
  }
}

if (import.meta.main) await main();
