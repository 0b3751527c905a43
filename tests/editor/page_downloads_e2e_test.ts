import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { upstreamUnavailable } from "../../lib/errors.ts";
import { captureDownloads, launchChromium } from "../../testing/editor_browser.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import {
  flag,
  isHidden,
  openEditor,
  submit,
  text,
  waitForStatus,
} from "../../testing/editor_page.ts";

/**
 * The service with the capturer double (a PNG for a PDF or a recording, a line of Markdown for
 * text), on a loopback port: these tests check what the editor sends and offers, not the file.
 */
async function startDownloadsInstance(env: Record<string, string> = {}) {
  const t = await createCaptureApp({ env });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, t.app.fetch);
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    capture: t.capture,
    async close() {
      await server.shutdown();
      await t.close();
    },
  };
}

interface Sent {
  body: Record<string, unknown>;
  accept: string;
}

/** Every capture request the page sends: its JSON body and its Accept header. */
function captureRequests(page: Page) {
  const sent: Sent[] = [];
  page.on("request", (request) => {
    if (!request.url().endsWith("/api/screenshot")) return;
    sent.push({ body: JSON.parse(request.postData() ?? "null"), accept: request.headers().accept });
  });
  return sent;
}

// Each choice: the option, the body's format (and pdf), the Accept and the file's extension.
const CHOICES = [
  { value: "pdf-page", format: "pdf", pdf: { onePage: true }, accept: "application/pdf" },
  { value: "pdf-a4", format: "pdf", accept: "application/pdf", ext: "pdf" },
  { value: "mp4", format: "mp4", accept: "video/mp4", video: true },
  { value: "webm", format: "webm", accept: "video/webm", video: true },
  { value: "gif", format: "gif", accept: "image/gif", video: true },
  { value: "markdown", format: "markdown", accept: "text/markdown", ext: "md" },
  { value: "html", format: "html", accept: "text/html" },
];

// The fields every request of the first test carries, whatever the format.
const PLAIN = {
  url: "https://example.com/docs",
  deviceType: "mobile",
  colorScheme: "light",
  forceRefresh: false,
  hideCookieBanners: true,
};

/** The canvas's pixels as a data URL: the downloads must leave them alone. */
const canvasData = (page: Page) =>
  page.evaluate(`document.getElementById("canvas").toDataURL()`) as Promise<string>;

/**
 * Keeps every blob the page makes a URL for: the page's CSP (connect-src 'self') lets nothing,
 * the test included, fetch a blob: URL back.
 */
function keepBlobs(page: Page) {
  return page.evaluateOnNewDocument(`(() => {
    const make = URL.createObjectURL;
    window.__blobs = new Map();
    URL.createObjectURL = (blob) => {
      const url = make(blob);
      window.__blobs.set(url, blob);
      return url;
    };
  })()`);
}

/** The download link's name and text, and the type and bytes of the blob it points at. */
async function linkState(page: Page) {
  const state = await page.evaluate(`(async () => {
    const link = document.getElementById("take-link");
    const blob = window.__blobs.get(link.href);
    const bytes = Array.from(new Uint8Array(await blob.arrayBuffer()));
    return { name: link.download, text: link.textContent, type: blob.type, bytes };
  })()`) as { name: string; text: string; type: string; bytes: number[] };
  return { ...state, bytes: new Uint8Array(state.bytes) };
}

Deno.test("each format is sent with its Accept and without image-only fields, and downloads as <host>.<ext>", async (t) => {
  const instance = await startDownloadsInstance();
  const dir = await Deno.makeTempDir({ prefix: "shotline-page-downloads-" });
  const browser = await launchChromium();
  try {
    const { page, watch } = await openEditor(browser, instance.origin);
    await keepBlobs(page);
    await page.reload({ waitUntil: "load" });
    const downloads = await captureDownloads(browser, dir);
    const sent = captureRequests(page);

    await t.step("Capture frames an image first; Download is usable beside it", async () => {
      await page.click('label[for="deviceType-mobile"]');
      await page.type("#capture-url", "example.com/docs");
      await submit(page, "#capture-submit");
      assert.match(await text(page, "#status"), /^Captured https:\/\/example\.com\/docs /);
      assert.equal(await flag(page, "#take-download", "disabled"), false);
      assert.equal(await isHidden(page, "#take-link"), true, "nothing downloaded yet");
    });
    const framed = await canvasData(page);

    // Image-only fields ticked: none of them may reach a PDF, a recording or the text.
    await page.click("#capture-full-page");
    await page.click("#capture-transparent");
    await page.click("#capture-hide-cookies");
    await page.click('label[for="scale-2"]');

    for (const choice of CHOICES) {
      await t.step(`${choice.value}: the request, the file and the link`, async () => {
        await page.select("#take-format", choice.value);
        const download = downloads.next();
        const answered = page.waitForResponse((res) => res.url().endsWith("/api/screenshot"));
        await submit(page, "#take-download");
        const res = await answered;
        assert.equal(res.status(), 200);
        const type = res.headers()["content-type"];
        assert.equal(type.split(";")[0], choice.accept);

        assert.deepEqual(sent.at(-1), {
          body: {
            ...PLAIN,
            // A recording keeps the scale: it is shot at the viewport's pixels.
            ...(choice.video && { scale: 2 }),
            format: choice.format,
            ...(choice.pdf && { pdf: choice.pdf }),
          },
          accept: choice.accept,
        });
        const job = instance.capture.jobs.at(-1);
        assert.equal(job?.options?.format, choice.format, "the service was asked for it");

        const name = `example.com.${choice.ext ?? choice.format}`;
        const file = await download;
        assert.equal(file.name, name);
        // The link holds the answer as it came, and the saved file is that blob.
        assert.deepEqual(await linkState(page), {
          name,
          text: `Download ${name} again`,
          type,
          bytes: file.bytes,
        });
        assert.equal(file.bytes.length, Number(res.headers()["content-length"]));
        assert.equal(await isHidden(page, "#take-link"), false);
        assert.match(await text(page, "#take-result"), new RegExp(`^${name}: [\\d.]+ K?B \\(`));
        assert.match(await text(page, "#status"), new RegExp(`^Downloaded ${name} \\(`));
        assert.equal(await isHidden(page, "#error"), true);
      });
    }

    await t.step("the canvas still holds the captured image", async () => {
      assert.equal(await canvasData(page), framed);
      assert.match(await text(page, "#status"), /^Downloaded example\.com\.html/);
    });

    await t.step("the format is remembered; Capture still sends its image fields", async () => {
      await page.reload({ waitUntil: "load" });
      assert.equal(
        await page.$eval("#take-format", (el) => (el as { value?: string }).value),
        "html",
      );
      await page.type("#capture-url", "example.com/docs");
      await submit(page, "#capture-submit");
      const capture = sent.at(-1);
      assert.deepEqual(capture?.body, { ...PLAIN, fullPage: true, scale: 2, transparent: true });
      // Capture names no Accept (the browser may report its default): JSON comes back.
      assert.ok([undefined, "*/*"].includes(capture?.accept), capture?.accept);
    });

    await downloads.detach();
    assert.deepEqual(watch.problems, [], "no console error and no failed request");
    assert.deepEqual(watch.pending(), []);
  } finally {
    await browser.close();
    await instance.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a download shows progress and cancels like a capture; 400, 503 and 429 show in the error box", async (t) => {
  // Two captures a minute: the cancelled one and the failed one use it up (a 400 costs none).
  const instance = await startDownloadsInstance({ RATE_LIMIT_PER_MINUTE: "2" });
  const browser = await launchChromium();
  try {
    const { page, watch } = await openEditor(browser, instance.origin);
    const sent = captureRequests(page);
    await page.type("#capture-url", "https://example.com/");
    await page.select("#take-format", "mp4");

    await t.step("Cancel (from the keyboard) aborts the download; nothing is saved", async () => {
      instance.capture.hold();
      watch.expectAbort("/api/screenshot");
      await page.focus("#take-download");
      await page.keyboard.press("Enter");
      await page.waitForSelector("#cancel:not([hidden])");
      await waitForStatus(page, /^Taking https:\/\/example\.com\/ as MP4 video… \d+ s$/);
      assert.equal(await flag(page, "#take-download", "disabled"), true, "locked while it runs");
      assert.equal(await flag(page, "#capture-submit", "disabled"), true);
      await page.focus("#cancel");
      await page.keyboard.press("Enter");
      assert.match(await waitForStatus(page, /^Cancelled/), /^Cancelled after \d+ s\.$/);
      instance.capture.release();
      assert.equal(await isHidden(page, "#error"), true, "a cancel is not an error");
      assert.equal(await isHidden(page, "#take-link"), true);
      assert.equal(await flag(page, "#take-download", "disabled"), false);
    });

    await t.step("a recording past its pixel budget shows the 400 envelope", async () => {
      await page.click('label[for="scale-3"]');
      watch.expect(400, "/api/screenshot");
      const answered = page.waitForResponse((res) => res.url().endsWith("/api/screenshot"));
      await submit(page, "#take-download");
      const res = await answered;
      assert.equal(res.status(), 400);
      const envelope = await res.json();
      assert.deepEqual(sent.at(-1)?.body, {
        url: "https://example.com/",
        deviceType: "desktop",
        colorScheme: "light",
        forceRefresh: false,
        scale: 3,
        format: "mp4",
      });
      assert.equal(await text(page, "#error-title"), envelope.error);
      assert.match(envelope.error, /^The recording would be 5760x3240 px/);
      assert.equal(await text(page, "#error-hint"), envelope.hint);
      assert.equal(await text(page, "#status"), "Failed.");
      await page.click('label[for="scale-1"]');
    });

    await t.step("a 503 naming the missing ffmpeg shows its error and hint", async () => {
      instance.capture.failWith = upstreamUnavailable("ffmpeg is not installed on the server.", {
        hint: "Ask for a PDF or an image, or install ffmpeg with libx264.",
      });
      watch.expect(503, "/api/screenshot");
      await submit(page, "#take-download");
      instance.capture.failWith = null;
      assert.equal(await isHidden(page, "#error"), false);
      assert.equal(await text(page, "#error-title"), "ffmpeg is not installed on the server.");
      assert.equal(
        await text(page, "#error-hint"),
        "Ask for a PDF or an image, or install ffmpeg with libx264.",
      );
      assert.equal(sent.at(-1)?.accept, "video/mp4");
      assert.equal(await isHidden(page, "#take-link"), true, "nothing to download");
      assert.equal(await isHidden(page, "#canvas"), true, "the empty preview stays empty");
    });

    await t.step("a 429 counts its wait down and keeps Download and Capture locked", async () => {
      await page.select("#take-format", "markdown");
      watch.expect(429, "/api/screenshot");
      const answered = page.waitForResponse((res) => res.url().endsWith("/api/screenshot"));
      await submit(page, "#take-download");
      const res = await answered;
      assert.equal(res.status(), 429);
      // The service answers a request that prefers Markdown with the envelope in Markdown.
      assert.match(res.headers()["content-type"], /^text\/markdown/);
      assert.match(await text(page, "#error-title"), /^Too many/);
      assert.match(await text(page, "#error-hint"), /the limit is 2 requests per minute/);
      assert.match(await text(page, "#error-wait"), /^You can capture again in \d+ s\.$/);
      assert.equal(await flag(page, "#take-download", "disabled"), true);
      assert.equal(await flag(page, "#capture-submit", "disabled"), true);
    });

    assert.deepEqual(watch.problems, [], "no console error and no failed request");
    assert.deepEqual(watch.pending(), []);
  } finally {
    await browser.close();
    await instance.close();
  }
});
