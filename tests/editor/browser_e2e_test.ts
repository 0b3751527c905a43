import assert from "node:assert/strict";
import { readImageInfo, sniffKind } from "../../lib/codecs/image_info.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";
import { captureDownloads, launchChromium, watchProblems } from "../../testing/editor_browser.ts";
import { POST_ID, startEditorInstance } from "../../testing/editor_instance.ts";
import {
  flag,
  framedSize,
  isHidden,
  readCanvas,
  type Rgb,
  submit,
  text,
  typeInto,
} from "../../testing/editor_page.ts";

// The media fixture's PNG (the post's avatar and photo) is this colour.
const MEDIA_RED: Rgb = [200, 30, 60];

Deno.test("the editor captures a page, draws a post card from proxied media and exports each format in Chromium", async () => {
  // A limit of 2 lets the test reach the 429 countdown after two real captures.
  const instance = await startEditorInstance({ RATE_LIMIT_PER_MINUTE: "2" });
  const dir = await Deno.makeTempDir({ prefix: "shotline-editor-downloads-" });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const watch = watchProblems(page);
    const downloads = await captureDownloads(browser, dir);
    const loaded = await page.goto(`${instance.origin}/`, { waitUntil: "load" });
    assert.equal(loaded?.status(), 200);
    assert.equal(await page.title(), "Shotline: screenshot editor");

    // Capture the loopback demo page through POST /api/screenshot, submitted from the keyboard.
    await page.type("#capture-url", instance.pageUrl);
    await page.focus("#capture-url");
    await page.keyboard.press("Enter");
    await page.waitForSelector('#stage[aria-busy="false"]', { timeout: 60_000 });
    assert.equal(await isHidden(page, "#error"), true, await text(page, "#error"));
    assert.match(
      await text(page, "#status"),
      /^Captured http:\/\/127\.0\.0\.1:\d+\/ \(1920×1080, fresh\)\.$/,
    );
    const shot = await readCanvas(page, MEDIA_RED);
    assert.equal(shot.prefix, "data:image/png;base64,");
    const capture = { width: 1920, height: 1080 };
    assert.deepEqual([shot.width, shot.height], framedSize({}, capture));

    // Frame controls work from the keyboard and redraw at once (Home: no padding).
    await page.select("#background", "color");
    await page.select("#background", "gradient");
    await page.focus("#padding");
    await page.keyboard.press("Home");
    const bare = await readCanvas(page, MEDIA_RED);
    assert.deepEqual([bare.width, bare.height], framedSize({ padding: 0 }, capture));
    for (let i = 0; i < 6; i++) await page.keyboard.press("ArrowRight");
    assert.equal(await text(page, "#padding-out"), "6");
    const framed = await readCanvas(page, MEDIA_RED);
    assert.deepEqual([framed.width, framed.height], framedSize({ padding: 6 }, capture));

    // Export to each format: the bytes the user gets decode to the canvas's dimensions.
    for (
      const [format, ext, preset] of [["png", "png", "low"], ["jpeg", "jpg", "high"], [
        "webp",
        "webp",
        "medium",
      ]]
    ) {
      await page.select("#export-format", format);
      await page.select("#export-preset", preset);
      const download = downloads.next();
      await submit(page, "#export-submit");
      const file = await download;
      assert.match(file.name, new RegExp(`^shotline-127\\.0\\.0\\.1-\\d{8}-\\d{6}\\.${ext}$`));
      const kind = sniffKind(file.bytes);
      assert.equal(kind, format, `${file.name} starts with the ${format} magic bytes`);
      const info = readImageInfo(kind!, file.bytes);
      assert.deepEqual([info?.width, info?.height], [framed.width, framed.height]);
      const pixels = await decodeWasm(kind!, file.bytes);
      assert.deepEqual([pixels.width, pixels.height], [framed.width, framed.height]);
      assert.match(
        await text(page, "#export-result"),
        new RegExp(`^${file.name.replaceAll(".", "\\.")}: [\\d.]+ (B|KB|MB) `),
      );
    }

    // A post card from the fake syndication host; avatar and photo come via /api/image-proxy.
    await page.type("#post-ref", `https://x.com/loopback/status/${POST_ID}?s=20`);
    await submit(page, "#post-submit");
    assert.equal(await isHidden(page, "#error"), true, await text(page, "#error"));
    assert.equal(await text(page, "#status"), `Post ${POST_ID} by @loopback drawn.`);
    const card = await readCanvas(page, MEDIA_RED);
    assert.equal(card.prefix, "data:image/png;base64,", "no SecurityError: the canvas is clean");
    assert.ok(card.matching > 10_000, `the proxied photo is on the canvas (${card.matching} px)`);

    // A refused URL shows the envelope's error and hint.
    watch.expect(400, "/api/screenshot");
    await typeInto(page, "#capture-url", "ftp://example.com/file");
    await submit(page, "#capture-submit");
    assert.equal(await isHidden(page, "#error"), false);
    assert.match(await text(page, "#error-title"), /\S/);
    assert.match(await text(page, "#error-hint"), /\S/);

    // The second capture (a cache hit) uses up the limit; the third gets 429 and a countdown.
    await typeInto(page, "#capture-url", instance.pageUrl);
    await submit(page, "#capture-submit");
    assert.match(await text(page, "#status"), /\(1920×1080, from the cache\)\.$/);
    watch.expect(429, "/api/screenshot");
    await submit(page, "#capture-submit");
    assert.equal(await isHidden(page, "#error"), false);
    assert.match(await text(page, "#error-hint"), /the limit is 2 requests per minute/);
    assert.match(await text(page, "#error-wait"), /^You can capture again in \d+ s\.$/);
    assert.equal(await flag(page, "#capture-submit", "disabled"), true);

    // At 375 px nothing overflows sideways; the dark scheme switches the page's colours.
    await page.setViewport({ width: 375, height: 740 });
    assert.equal(await page.evaluate("document.documentElement.scrollWidth"), 375);
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
    const background = await page.evaluate("getComputedStyle(document.body).backgroundColor");
    assert.equal(background, "rgb(17, 19, 23)");

    assert.deepEqual(watch.problems, [], "no console error and no failed request");
    await downloads.detach();
  } finally {
    await browser.close();
    await instance.close();
    await Deno.remove(dir, { recursive: true });
  }
});
