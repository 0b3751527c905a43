/**
 * Frames on the real app and a real Chromium: the browser bar drawn from the page's own title,
 * theme colour and icon (nothing fetched for it), a new frame of the cached capture with no
 * request to the page, the MCP capture tool answering the framed picture, and the same bar on the
 * remote backend.
 */
import assert from "node:assert/strict";
import { html, servePages } from "../../testing/capture_fixtures.ts";
import { captureHarness } from "../../testing/capture_harness.ts";
import { solidPng } from "../../testing/icons.ts";
import { imageOf, mcpSession } from "../../testing/mcp.ts";
import { decodePng } from "../../testing/capture_fixtures.ts";
import { pngSize } from "../../testing/png.ts";
import { shapeHarness } from "../../testing/shape_harness.ts";

const ICON_RGB = [200, 30, 40] as const;
const THEME = "#1b4d8f";
const BAR_FRAME = { browserBar: "auto", shadow: 0, padding: 32 };

/** A page with a title, a theme colour and an icon, for the bar to show. */
function titledPages() {
  return servePages({
    "/titled": () =>
      html(
        `<!doctype html><html><head><title>Quarterly numbers, framed</title>` +
          `<meta name="theme-color" content="${THEME}">` +
          `<link rel="icon" href="/icon.png"></head>` +
          `<body style="margin:0;background:#ffffff"><h1>Numbers</h1></body></html>`,
      ),
    "/icon.png": () =>
      new Response(solidPng(32, ICON_RGB), { headers: { "content-type": "image/png" } }),
  });
}

/** A desktop capture framed with BAR_FRAME: the bar in the theme colour with icon and title. */
function assertBarFromPage(image: ReturnType<typeof decodePng>, placement: { image: object }) {
  // Desktop 1920x1080 below a 40 px bar, 32 px of padding around.
  assert.deepEqual([image.width, image.height], [1920 + 64, 1080 + 40 + 64]);
  assert.deepEqual(placement.image, { x: 32, y: 72, width: 1920, height: 1080 });
  const barY = 32;
  assert.deepEqual(image.rgb(1900, barY + 20), [0x1b, 0x4d, 0x8f], "theme colour");
  const iconX = Math.round(32 + 40 * 1.9), iconY = Math.round(barY + 11);
  assert.deepEqual(image.rgb(iconX + 9, iconY + 9), [...ICON_RGB], "the page's icon");
  // Light text on the dark theme colour, right of the icon.
  let text = 0;
  for (let y = barY + 8; y < barY + 32; y++) {
    for (let x = iconX + 30; x < iconX + 400; x++) if (image.rgb(x, y)[0] > 180) text++;
  }
  assert.ok(text > 200, `title pixels: ${text}`);
  // The page itself fills the window below the bar.
  assert.deepEqual(image.rgb(1000, 72 + 900), [255, 255, 255]);
}

Deno.test("frames of real captures: the bar from the page, reframing renders nothing", async (t) => {
  const pages = titledPages();
  const { harness, shoot, capture } = await captureHarness(pages);
  const url = `${pages.origin}/titled`;
  try {
    await t.step("auto bar: theme colour, the page's icon and its title in text", async () => {
      const { json, image } = await capture("/titled", { frame: BAR_FRAME });
      assert.equal(json.page.title, "Quarterly numbers, framed");
      assertBarFromPage(image, json.frame);
    });

    await t.step("another frame of the cached capture: no request reaches the page", async () => {
      const before = pages.hits.get("/titled");
      const icons = pages.hits.get("/icon.png");
      const res = await shoot({
        url,
        frame: { device: "laptop", size: "og", background: "ocean" },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-cache"), "hit");
      const body = await res.json();
      assert.deepEqual([body.width, body.height], [1200, 630]);
      assert.equal(pages.hits.get("/titled"), before);
      assert.equal(pages.hits.get("/icon.png"), icons);
    });

    await t.step("the MCP capture tool answers the framed picture", async () => {
      await using session = await mcpSession(harness.app);
      const result = await session.call("capture_screenshot", {
        url,
        frame: { size: "og", fit: "cover" },
      });
      assert.ok(!result.isError, JSON.stringify(result.content).slice(0, 300));
      const { mimeType, bytes } = imageOf(result);
      assert.equal(mimeType, "image/png");
      assert.deepEqual(pngSize(bytes), { width: 1200, height: 630 });
      const structured = result.structuredContent as { frame?: { width: number } };
      assert.equal(structured.frame?.width, 1200);
      const decoded = decodePng(bytes);
      assert.equal(decoded.height, 630);
    });
  } finally {
    await harness.close();
    await pages.close();
  }
});

Deno.test("a frame of a capture on the remote backend: the same bar from the page", async () => {
  const pages = titledPages();
  try {
    await using remote = await shapeHarness(pages, "remote");
    const { json, png } = await remote.shoot("/titled", { fullPage: false, frame: BAR_FRAME });
    assertBarFromPage(decodePng(png), json.frame);
  } finally {
    await pages.close();
  }
});
