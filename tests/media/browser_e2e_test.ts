import assert from "node:assert/strict";
import { appWithUpstreams } from "../../testing/loopback_upstream.ts";
import { startMediaUpstream } from "../../testing/media_upstream.ts";
import { launchChromium } from "../../testing/editor_browser.ts";

/** The editor's move in miniature: load an image, draw it, read the canvas back. */
const CANVAS_PAGE = `<!doctype html>
<meta charset="utf-8">
<title>canvas probe</title>
<script>
async function drawAndRead(src, crossOrigin) {
  try {
    const img = new Image();
    if (crossOrigin) img.crossOrigin = "anonymous";
    await new Promise((resolve, reject) => {
      img.onload = resolve;
      img.onerror = () => reject(new Error("image failed to load"));
      img.src = src;
    });
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const dataUrl = canvas.toDataURL("image/png");
    return { ok: true, prefix: dataUrl.slice(0, 22), pixel: Array.from(ctx.getImageData(0, 0, 1, 1).data) };
  } catch (error) {
    return { ok: false, name: error.name, message: error.message };
  }
}
</script>`;

/** The page's global, as seen from page.evaluate. */
interface Probe {
  drawAndRead(src: string, crossOrigin: boolean): Promise<DrawResult>;
}

interface DrawResult {
  ok: boolean;
  prefix?: string;
  pixel?: number[];
  name?: string;
  message?: string;
}

Deno.test("Chromium draws a proxied image on a canvas and reads it back without a SecurityError", async () => {
  const upstream = startMediaUpstream();
  const t = await appWithUpstreams({ media: upstream.origin });
  // Test-only route on the test app: the page that plays the editor.
  t.app.get("/__test/canvas", (c) => c.html(CANVAS_PAGE));
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, t.app.fetch);
  const port = server.addr.port;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const loaded = await page.goto(`http://127.0.0.1:${port}/__test/canvas`);
    assert.equal(loaded?.status(), 200);
    const media = encodeURIComponent("https://pbs.twimg.com/media/ok.png");
    const draw = (src: string, crossOrigin: boolean) =>
      page.evaluate(
        (s, co) => (globalThis as unknown as Probe).drawAndRead(s, co),
        src,
        crossOrigin,
      ) as Promise<DrawResult>;

    // Same origin as the page, as the editor uses it.
    const same = await draw(`/api/image-proxy?url=${media}`, false);
    assert.deepEqual(same, {
      ok: true,
      prefix: "data:image/png;base64,",
      pixel: [200, 30, 60, 255],
    });

    // From another origin (localhost vs 127.0.0.1) in CORS mode: Access-Control-Allow-Origin: *.
    const cross = await draw(`http://localhost:${port}/api/image-proxy?url=${media}`, true);
    assert.deepEqual(cross, {
      ok: true,
      prefix: "data:image/png;base64,",
      pixel: [200, 30, 60, 255],
    });

    // Control: the same image straight from the media host taints the canvas.
    const direct = await draw(`${upstream.origin}/media/ok.png`, false);
    assert.equal(direct.ok, false);
    assert.equal(direct.name, "SecurityError", "the probe does detect a tainted canvas");
  } finally {
    await browser.close();
    await server.shutdown();
    await t.close();
    await upstream.close();
  }
});
