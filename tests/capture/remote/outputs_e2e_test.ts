/**
 * The outputs beyond images on the "chromium-remote" backend (a second Chromium plays the
 * fleet): the same render path, so a PDF, a recording (frames over CDP, encoded by this
 * service's ffmpeg) and the page's text come out as on the local backend.
 */
import assert from "node:assert/strict";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { outputRoutes, pdfFacts, pdfText, videoFacts } from "../../../testing/output_pages.ts";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";
import { remoteShooter, remoteWithFilters } from "../../../testing/remote_filters.ts";

Deno.test("remote captures answer a PDF, a recording, Markdown and HTML", async (t) => {
  await using remote = await startRemoteChromium();
  const pages = servePages(outputRoutes());
  await using remoteFilters = await remoteWithFilters(remote, {});
  const capture = remoteShooter(remoteFilters.capturer, pages.origin);
  try {
    await t.step("pdf: one page, its text extractable", async () => {
      const result = await capture("/article", {
        options: { format: "pdf", pdf: { onePage: true } },
      });
      assert.equal(result.format, "pdf");
      assert.equal(result.output?.pages, 1);
      assert.equal((await pdfFacts(result.image)).pages, 1);
      assert.match(await pdfText(result.image), /Written by script after load/);
    });
    await t.step("mp4: frames from the remote browser, encoded here", async () => {
      const result = await capture("/bands", {
        options: {
          format: "mp4",
          width: 640,
          height: 480,
          recording: { durationMs: 1000, fps: 10 },
        },
      });
      assert.deepEqual(
        [result.format, result.output?.frames, result.output?.width, result.output?.height],
        ["mp4", 10, 640, 480],
      );
      const video = await videoFacts(result.image);
      assert.deepEqual([video.codec, video.frames, video.width], ["h264", 10, 640]);
    });
    await t.step("markdown and html", async () => {
      const markdown = await capture("/article", { options: { format: "markdown" } });
      const text = new TextDecoder().decode(markdown.image);
      assert.match(text, /^# Field notes on tides$/m);
      assert.ok(!text.includes("Navigation about us"));
      const html = await capture("/article", { options: { format: "html" } });
      const dom = new TextDecoder().decode(html.image);
      assert.ok(!/<script/i.test(dom));
      assert.match(dom, /Written by script after load/);
    });
  } finally {
    await pages.close();
  }
});
