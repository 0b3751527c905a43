/**
 * The scrolling recording with real Chromium and ffmpeg, on a loopback page of distinct colour
 * bands under a fixed header: MP4, WebM (on a page whose clock a settle stopped) and GIF (at
 * scale 2) decode to the planned size, frame count, codec and pixel format; the first frame shows
 * the top band as a viewport screenshot does, the middle one the band the plan puts there, the
 * last the bottom band; the header is in every sampled frame. A recording past its budget fails
 * typed and leaves no ffmpeg behind.
 */
import assert from "node:assert/strict";
import { ourFfmpegs } from "../../../testing/processes.ts";
import type { Browser, Page } from "puppeteer-core";
import { launchChromium } from "../../../testing/editor_browser.ts";
import { decodePng, servePages } from "../../../testing/capture_fixtures.ts";
import { framePng, mp4Boxes, probeVideo } from "../../../testing/video_files.ts";
import { eventually } from "../../../testing/wait.ts";
import { recordScroll } from "../../../lib/capture/page/record_scroll.ts";
import { planScroll } from "../../../lib/capture/page/recording_plan.ts";
import { PageFailure } from "../../../lib/capture/page/page_failure.ts";
import { createVideoEncoders } from "../../../lib/codecs/video_encoder.ts";
import { resolvedRecording, type VideoFormat } from "../../../lib/capture/request/output.ts";

const VIEWPORT = { width: 320, height: 240 };
const BAND = 160;
const HEADER_PX = 48;
const HEADER = [255, 0, 255];
// Colours far apart from each other and from the header: a frame's pixel is judged by the
// nearest of them, so video compression and GIF dithering do not matter.
const BANDS = [
  [230, 40, 40],
  [40, 200, 40],
  [40, 40, 230],
  [240, 220, 40],
  [40, 220, 220],
  [120, 60, 20],
  [250, 250, 250],
  [20, 20, 20],
  [250, 140, 0],
  [120, 120, 120],
  [0, 110, 60],
  [150, 150, 255],
  [90, 0, 130],
  [200, 255, 160],
  [0, 60, 120],
];
const PALETTE = [...BANDS, HEADER];
const HEIGHT = BANDS.length * BAND;

const hex = (rgb: number[]) => "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join("");
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}
  header{position:fixed;top:0;left:0;right:0;height:${HEADER_PX}px;background:${hex(HEADER)}}
  </style></head><body><header></header>${
  BANDS.map((c) => `<div style="height:${BAND}px;background:${hex(c)}"></div>`).join("")
}</body></html>`;

/** The index in PALETTE nearest to `rgb`. */
function nearest(rgb: number[]): number {
  const distance = (c: number[]) => c.reduce((sum, v, i) => sum + (v - rgb[i]) ** 2, 0);
  return PALETTE.reduce((best, c, i) => distance(c) < distance(PALETTE[best]) ? i : best, 0);
}

/** The band shown at viewport row `row` when the page is scrolled to `y`. */
const bandAt = (y: number, row: number) => Math.floor((y + row) / BAND);

/** A viewport row below the header in the middle of a band at scroll `y` (clear of edges). */
function midBandRow(y: number): number {
  const row = HEADER_PX + 8;
  return row + ((BAND / 2 - ((y + row) % BAND)) + BAND) % BAND;
}

async function openPage(browser: Browser, origin: string, scale = 1): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ ...VIEWPORT, deviceScaleFactor: scale });
  await page.goto(`${origin}/bands`, { waitUntil: "load" });
  return page;
}

/** Records `format`, then checks size, frames, codec, and the first, middle and last frames. */
async function recordAndCheck(page: Page, format: VideoFormat, scale: number) {
  const recording = resolvedRecording(format, { durationMs: 1000, fps: 10 });
  const lookup = await createVideoEncoders({ ffmpegPath: "ffmpeg" }).encoderFor(format, {
    fps: recording.fps,
  });
  assert.ok("encoder" in lookup, `ffmpeg encodes ${format}`);
  const top = decodePng(new Uint8Array(await page.screenshot({ type: "png" })));
  const recorded = await recordScroll(page, {
    format,
    recording,
    scale,
    encoder: lookup.encoder,
    budgetEnd: performance.now() + 120_000,
  });
  const size = { width: VIEWPORT.width * scale, height: VIEWPORT.height * scale };
  assert.deepEqual(
    [recorded.frames, recorded.durationMs, recorded.width, recorded.height],
    [10, 1000, size.width, size.height],
  );
  const facts = await probeVideo(recorded.bytes);
  assert.deepEqual(
    { codec: facts.codec, width: facts.width, height: facts.height, frames: facts.frames },
    { codec: { mp4: "h264", webm: "vp9", gif: "gif" }[format], ...size, frames: 10 },
  );
  assert.ok(Math.abs(facts.durationS - 1) < 0.15, `1 s long, not ${facts.durationS}`);
  if (format !== "gif") assert.equal(facts.pixFmt, "yuv420p");
  if (format === "mp4") {
    const boxes = mp4Boxes(recorded.bytes);
    assert.ok(boxes.indexOf("moov") < boxes.indexOf("mdat"), `moov first: ${boxes}`);
  }
  const plan = planScroll(recording, { distance: HEIGHT - VIEWPORT.height, screen: 240 });
  for (const index of [0, 5, 9]) {
    const frame = decodePng(await framePng(recorded.bytes, index));
    const y = plan[index];
    const row = midBandRow(y);
    const x = VIEWPORT.width / 2;
    const seen = nearest(frame.rgb(x * scale, row * scale));
    assert.equal(seen, bandAt(y, row), `frame ${index} at ${y}: band ${bandAt(y, row)}`);
    assert.equal(nearest(frame.rgb(x * scale, 20 * scale)), PALETTE.indexOf(HEADER), "header");
    if (index === 0) {
      assert.equal(nearest(top.rgb(x * scale, row * scale)), seen, "as the viewport shot");
    }
  }
  assert.equal(plan[9], HEIGHT - VIEWPORT.height, "the last frame is the bottom");
}

Deno.test("a scrolling recording shows the page top to bottom under its fixed header", async (t) => {
  const pages = servePages({
    "/bands": () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
  });
  const browser = await launchChromium();
  try {
    await t.step("mp4: H.264 yuv420p, moov first, top, middle and bottom bands", async () => {
      const page = await openPage(browser, pages.origin);
      await recordAndCheck(page, "mp4", 1);
      await page.close();
    });
    await t.step("webm on a page whose clock a settle stopped (virtual time)", async () => {
      const page = await openPage(browser, pages.origin);
      const cdp = await page.createCDPSession();
      const expired = new Promise((resolve) =>
        cdp.once("Emulation.virtualTimeBudgetExpired", resolve)
      );
      await cdp.send("Emulation.setVirtualTimePolicy", { policy: "advance", budget: 200 });
      await expired;
      await cdp.detach();
      await recordAndCheck(page, "webm", 1);
      await page.close();
    });
    await t.step("gif at scale 2: frames of 640x480 device px", async () => {
      const page = await openPage(browser, pages.origin, 2);
      await recordAndCheck(page, "gif", 2);
      await page.close();
    });
    await t.step("past its budget: recording_timeout, and no ffmpeg left", async () => {
      const page = await openPage(browser, pages.origin);
      const lookup = await createVideoEncoders({ ffmpegPath: "ffmpeg" }).encoderFor("mp4", {
        fps: 10,
      });
      assert.ok("encoder" in lookup);
      const failure = await recordScroll(page, {
        format: "mp4",
        recording: resolvedRecording("mp4", { durationMs: 1000, fps: 10 }),
        scale: 1,
        encoder: lookup.encoder,
        budgetEnd: performance.now(),
      }).then(() => null, (error) => error);
      assert.ok(failure instanceof PageFailure, String(failure));
      assert.equal(failure.detail.kind, "recording_timeout");
      await lookup.encoder.closed;
      await eventually(() => ourFfmpegs().length === 0, "ffmpeg reaped");
      await page.close();
    });
  } finally {
    await browser.close();
    await pages.close();
  }
});
