/**
 * The outputs beyond images through POST /api/screenshot and the MCP tool, on the real app and
 * a real Chromium: a PDF, a recording and the page's text, each through JSON, through Accept,
 * and through the cache.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { servePages } from "../../testing/capture_fixtures.ts";
import { captureHarness } from "../../testing/capture_harness.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { mcpSession, textsOf } from "../../testing/mcp.ts";
import { outputRoutes, pdfFacts, pdfText, videoFacts } from "../../testing/output_pages.ts";

Deno.test("PDF, recording, Markdown and HTML through the route, Accept, the cache and MCP", async (t) => {
  const pages = servePages(outputRoutes());
  const { harness, shoot } = await captureHarness(pages, { CAPTURE_TIMEOUT_MS: "8000" });
  const article = `${pages.origin}/article`;
  const bands = `${pages.origin}/bands`;
  const accepting = (accept: string, body: Record<string, unknown>) =>
    harness.app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify(body),
    });
  const json = async (body: Record<string, unknown>) => {
    const response = await shoot(body);
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    return { response, body: JSON.parse(text) };
  };
  try {
    await t.step("pdf: paginated A4 in JSON, text extractable, pages counted", async () => {
      const { response, body } = await json({ url: bands, format: "pdf" });
      assert.equal(body.format, "pdf");
      assert.equal(body.width, undefined, "a PDF has no pixel size");
      const pdf = Buffer.from(body.screenshot, "base64");
      assert.equal(pdf.subarray(0, 5).toString(), "%PDF-");
      const facts = await pdfFacts(pdf);
      assert.equal(facts.pages, body.pages);
      assert.ok(facts.pages >= 4, `4000 px of bands on A4 pages: ${facts.pages}`);
      assert.equal(response.headers.get("x-pdf-pages"), String(body.pages));
      // A4 is 595.28 x 841.89 pt; Chromium rounds it to its own units.
      assert.ok(Math.abs(facts.width - 595.3) < 1 && Math.abs(facts.height - 841.9) < 1, "A4");
      assert.match(await pdfText(pdf), /Band 4/);
    });

    await t.step("pdf: one page by Accept, then from the cache", async () => {
      const body = { url: article, pdf: { onePage: true } };
      const first = await accepting("application/pdf", body);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get("content-type"), "application/pdf");
      assert.equal(first.headers.get("x-cache"), "miss");
      const pdf = new Uint8Array(await first.arrayBuffer());
      assert.equal((await pdfFacts(pdf)).pages, 1);
      const text = await pdfText(pdf);
      assert.match(text, /Grüße from the café/);
      assert.match(text, /Written by script after load/);
      const again = await json({ ...body, format: "pdf" });
      assert.equal(again.body.cached, true);
      assert.equal(again.body.pages, 1);
      assert.deepEqual(Buffer.from(again.body.screenshot, "base64"), Buffer.from(pdf));
    });

    await t.step("markdown: the article in content, navigation and banner left out", async () => {
      const { body } = await json({ url: article, format: "markdown" });
      assert.equal(body.format, "markdown");
      assert.equal(body.screenshot, undefined);
      const markdown = String(body.content);
      assert.match(markdown, /^# Field notes on tides$/m);
      assert.match(markdown, /^## Where to watch$/m);
      assert.match(markdown, /^[-*] +The old pier at dawn$/m);
      assert.ok(markdown.includes(`[tide tables](${pages.origin}/tables/tides)`), markdown);
      assert.match(markdown, /\| *Monday *\| *06:12 *\|/);
      assert.match(markdown, /```js\nconst tide = await fetch\("\/tides.json"\);\n```/);
      assert.match(markdown, /Written by script after load\./);
      for (const left of ["Navigation about us", "consent banner text", "shoreline society"]) {
        assert.ok(!markdown.includes(left), `${left} left out`);
      }
      assert.equal(body.page.title, "Field notes on tides");
      const again = await json({ url: article, format: "markdown" });
      assert.deepEqual([again.body.cached, again.body.content], [true, body.content]);
    });

    await t.step("markdown and html by Accept, as UTF-8 text", async () => {
      const markdown = await accepting("text/markdown", { url: article });
      assert.equal(markdown.headers.get("content-type"), "text/markdown; charset=utf-8");
      assert.match(await markdown.text(), /Grüße from the café/);
      const page = await accepting("text/html", { url: article });
      assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
      const dom = await page.text();
      assert.match(dom, /^<!DOCTYPE html>/i);
      assert.ok(!/<script/i.test(dom), "scripts removed");
      assert.match(dom, /Written by script after load\./);
      assert.match(dom, /<base href=/);
    });

    await t.step("mp4: a short recording of the whole page, its facts in JSON", async () => {
      const recording = { durationMs: 1000, fps: 10 };
      const { response, body } = await json({
        url: bands,
        format: "mp4",
        width: 640,
        height: 480,
        recording,
      });
      assert.deepEqual([body.format, body.width, body.height], ["mp4", 640, 480]);
      assert.deepEqual([body.durationMs, body.frames, body.fps], [1000, 10, 10]);
      assert.equal(response.headers.get("x-duration-ms"), "1000");
      const video = await videoFacts(Buffer.from(body.screenshot, "base64"));
      assert.deepEqual(
        [video.codec, video.width, video.height, video.pixelFormat, video.frames],
        ["h264", 640, 480, "yuv420p", 10],
      );
      const again = await json({ url: bands, format: "mp4", width: 640, height: 480, recording });
      assert.equal(again.body.cached, true);
      assert.deepEqual([again.body.durationMs, again.body.frames], [1000, 10], "facts cached");
      assert.equal(again.body.screenshot, body.screenshot);
    });

    await t.step("gif on a phone: frames at the device's own pixel ratio", async () => {
      const { body } = await json({
        url: bands,
        format: "gif",
        deviceType: "mobile",
        device: "iphone-se",
        recording: { durationMs: 1000, fps: 10 },
      });
      const video = await videoFacts(Buffer.from(body.screenshot, "base64"));
      assert.deepEqual([video.width, video.height, video.frames], [body.width, body.height, 10]);
      assert.ok(body.width > 375, `an iPhone SE's frames are past its CSS width: ${body.width}`);
    });

    await t.step("webm and gif by Accept", async () => {
      const body = { url: bands, width: 640, height: 480, recording: { durationMs: 1000 } };
      const webm = await accepting("video/webm", body);
      assert.equal(webm.headers.get("content-type"), "video/webm");
      const vp9 = await videoFacts(new Uint8Array(await webm.arrayBuffer()));
      assert.deepEqual([vp9.codec, vp9.frames], ["vp9", 30]);
      const gif = await accepting("image/gif", body);
      assert.equal(gif.headers.get("content-type"), "image/gif");
      const bytes = new Uint8Array(await gif.arrayBuffer());
      assert.equal(new TextDecoder().decode(bytes.subarray(0, 6)), "GIF89a");
      assert.deepEqual((await videoFacts(bytes)).frames, 12);
    });

    await t.step(
      "MCP: a PDF as an embedded resource after its JSON, Markdown as text",
      async () => {
        await using session = await mcpSession(harness.app);
        const pdf = await session.call("capture_screenshot", { url: bands, format: "pdf" });
        assert.ok(!pdf.isError, JSON.stringify(pdf).slice(0, 300));
        const [about, resource, link] = pdf.content;
        assert.equal(resource.type, "resource");
        assert.equal(link.type, "resource_link", "the kept PDF, one link away");
        if (resource.type !== "resource" || !("blob" in resource.resource)) throw new Error("blob");
        assert.equal(resource.resource.mimeType, "application/pdf");
        assert.equal(
          Buffer.from(resource.resource.blob, "base64").subarray(0, 5).toString(),
          "%PDF-",
        );
        assert.equal(JSON.parse(String(about.type === "text" && about.text)).pages >= 4, true);
        const markdown = await session.call("capture_screenshot", {
          url: article,
          format: "markdown",
        });
        const [text, facts] = textsOf(markdown);
        assert.match(text, /^# Field notes on tides$/m);
        assert.equal(JSON.parse(facts).format, "markdown");
      },
    );
  } finally {
    await harness.close();
    await pages.close();
  }
});

Deno.test("a recording without ffmpeg is a 503 naming it, and costs the client nothing", async () => {
  const pages = servePages(outputRoutes());
  const { harness, shoot } = await captureHarness(pages, {
    FFMPEG_PATH: "/nonexistent/ffmpeg",
    RATE_LIMIT_PER_MINUTE: "2",
  });
  try {
    for (let i = 0; i < 3; i++) {
      const envelope = await assertEnvelope(
        harness.app,
        await shoot({ url: `${pages.origin}/bands`, format: "mp4" }),
        503,
        "upstream_unavailable",
      );
      assert.match(`${envelope.error} ${envelope.hint}`, /ffmpeg/);
    }
    assert.equal(pages.hits.get("/bands") ?? 0, 0, "no page was rendered");
  } finally {
    await harness.close();
    await pages.close();
  }
});
