/**
 * GET /api/render end to end: signed links answered by the real app with its lazily launched
 * Chromium, for a page served on loopback, in each image format a link allows.
 */
import assert from "node:assert/strict";
import { signRenderLink } from "../../lib/http/render_links.ts";
import { readImageInfo } from "../../lib/codecs/image_info.ts";
import { createTestApp } from "../../testing/app.ts";
import { servePages } from "../../testing/capture_fixtures.ts";
import { RENDER_SECRET } from "../../testing/render_app.ts";

Deno.test("render links answer real Chromium captures as PNG, JPEG and WebP", async () => {
  const pages = servePages();
  const t = await createTestApp({
    env: {
      // The page is on loopback, so the app must opt in to private addresses.
      ALLOW_PRIVATE_NETWORK: "true",
      RENDER_LINK_SECRET: RENDER_SECRET,
      CAPTURE_TIMEOUT_MS: "5000",
    },
  });
  const link = (fields: Record<string, unknown>) =>
    signRenderLink("http://localhost", { url: `${pages.origin}/`, ...fields }, {
      secret: RENDER_SECRET,
      expiresAt: new Date(Date.now() + 600_000),
    });
  try {
    for (const format of ["png", "jpeg", "webp"] as const) {
      const url = await link({ format, width: 640, height: 360, colorScheme: "dark" });
      const res = await t.app.request(url);
      const bytes = new Uint8Array(await res.arrayBuffer());
      assert.equal(res.status, 200, new TextDecoder().decode(bytes.slice(0, 300)));
      assert.equal(res.headers.get("content-type"), `image/${format}`);
      const info = readImageInfo(format, bytes);
      assert.deepEqual([info?.kind, info?.width, info?.height], [format, 640, 360]);
      assert.equal(res.headers.get("x-cache"), "miss");
    }
    const url = await link({ format: "webp", width: 640, height: 360, colorScheme: "dark" });
    const again = await t.app.request(url, { method: "HEAD" });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("x-cache"), "hit");
    assert.equal(again.headers.get("content-type"), "image/webp");
    assert.equal(await again.text(), "");
    assert.equal(pages.hits.get("/"), 3, "one render per format, none for the hit");
  } finally {
    await t.close();
    await pages.close();
  }
});
