/**
 * The scrolling recording end to end on a 10,000 px loopback page at 1280x720 (bands of colour and
 * text, a fixed header, lazy images): a new page, load, record and encode, per format. Beside
 * each: the largest gap between distinct frames in the output (ffmpeg's mpdecimate), its size,
 * and the size of a reference encode of the very same frames (x264 medium, VP9 at good quality,
 * a GIF with ffmpeg's default dithering). Printed as Markdown (bench/README.md).
 *
 *   deno run -A bench/recording.ts [--rounds=3] [--duration=6000] [--fps=30] [--scroll=smooth]
 *     [--formats=mp4,webm,gif]
 */
import type { Page } from "puppeteer-core";
import { launchChromium } from "../testing/editor_browser.ts";
import { createVideoEncoders, type VideoEncoder } from "../lib/codecs/video_encoder.ts";
import { recordScroll } from "../lib/capture/page/record_scroll.ts";
import {
  type RecordingScroll,
  resolvedRecording,
  type VideoFormat,
} from "../lib/capture/request/output.ts";
import { distinctFrameTimes, probeVideo } from "../testing/video_files.ts";
import { planScroll } from "../lib/capture/page/recording_plan.ts";
import { loadAverage, median } from "./support/measure.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 3);
const DURATION = Number(option("duration") ?? 6000);
const FPS = option("fps") ? Number(option("fps")) : undefined;
const SCROLL = (option("scroll") ?? "smooth") as RecordingScroll;
const FORMATS = (option("formats") ?? "mp4,webm,gif").split(",") as VideoFormat[];
const HEIGHT = 10_000;

function tallPage(): string {
  const bands = Array.from({ length: HEIGHT / 200 }, (_, i) => {
    const image = i % 5 === 3
      ? `<img loading="lazy" src="/img/${i}.svg" width="300" height="120" style="float:right">`
      : "";
    return `<section style="height:200px;background:hsl(${(i * 47) % 360},60%,${
      45 + (i % 3) * 10
    }%);font:20px sans-serif;padding:16px;box-sizing:border-box">${image}` +
      `<h2>Section ${i}</h2><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do ` +
      `eiusmod tempor incididunt ut labore et dolore magna aliqua.</p></section>`;
  }).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}` +
    `header{position:fixed;top:0;left:0;right:0;height:56px;background:#222;color:#fff;` +
    `font:24px sans-serif;padding:12px;box-sizing:border-box;z-index:2}</style></head>` +
    `<body><header>Shotline</header>${bands}</body></html>`;
}

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
  const path = new URL(request.url).pathname;
  if (path.startsWith("/img/")) {
    return new Response(
      `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="120">` +
        `<rect width="300" height="120" fill="#0a0"/></svg>`,
      { headers: { "content-type": "image/svg+xml" } },
    );
  }
  return new Response(tallPage(), { headers: { "content-type": "text/html" } });
});
const url = `http://127.0.0.1:${server.addr.port}/`;
const encoders = createVideoEncoders({ ffmpegPath: "ffmpeg" });
const browser = await launchChromium();

/** An encoder that also keeps every frame it is given, for the reference encode. */
function keeping(encoder: VideoEncoder, frames: Uint8Array[]): VideoEncoder {
  return { ...encoder, write: (frame) => (frames.push(frame), encoder.write(frame)) };
}

async function recordOnce(format: VideoFormat) {
  const recording = resolvedRecording(format, {
    durationMs: DURATION,
    scroll: SCROLL,
    ...(FPS ? { fps: FPS } : {}),
  });
  const started = performance.now();
  const page: Page = await browser.newPage();
  try {
    await page.setViewport({ width: 1280, height: 720 });
    await page.goto(url, { waitUntil: "load" });
    const loadedMs = performance.now() - started;
    const lookup = await encoders.encoderFor(format, {
      fps: recording.fps,
      width: 1280,
      height: 720,
    });
    if (!("encoder" in lookup)) throw new Error(`missing ${lookup.missing}`);
    const frames: Uint8Array[] = [];
    const recorded = await recordScroll(page, {
      format,
      recording,
      scale: 1,
      encoder: keeping(lookup.encoder, frames),
      budgetEnd: performance.now() + 120_000,
    });
    return { ms: performance.now() - started, loadedMs, recorded, frames, recording };
  } finally {
    await page.close();
  }
}

/** The reference encode of the same JPEG frames with slower, stronger settings. */
async function referenceSize(format: VideoFormat, frames: Uint8Array[], fps: number) {
  const dir = await Deno.makeTempDir({ prefix: "shotline-bench-" });
  try {
    const input = `${dir}/frames.mjpeg`;
    await Deno.writeFile(input, concat(frames));
    const output = `${dir}/reference.${format}`;
    const codec = {
      mp4: ["-c:v", "libx264", "-preset", "medium", "-crf", "23", "-pix_fmt", "yuv420p"],
      webm: [
        "-c:v",
        "libvpx-vp9",
        "-deadline",
        "good",
        "-cpu-used",
        "2",
        "-crf",
        "36",
        "-b:v",
        "0",
      ],
      gif: ["-lavfi", "split[a][b];[a]palettegen[p];[b][p]paletteuse"],
    }[format];
    const crop = format === "gif" ? [] : ["-vf", "crop=trunc(iw/2)*2:trunc(ih/2)*2"];
    const result = await new Deno.Command("ffmpeg", {
      args: [
        ...["-v", "error", "-f", "image2pipe", "-framerate", String(fps), "-c:v", "mjpeg"],
        ...["-i", input, ...crop, ...codec, "-y", output],
      ],
    }).output();
    if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
    return (await Deno.stat(output)).size;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The longest run of a frame fed again (the same bytes) where the plan moves the page: a stall.
 * The planned holds at both ends are left out.
 */
function longestStall(
  frames: Uint8Array[],
  recording: ReturnType<typeof resolvedRecording>,
): number {
  const plan = planScroll(recording, { distance: HEIGHT - 720, screen: 720 });
  let longest = 0;
  let run = 0;
  for (let i = 1; i < frames.length; i++) {
    const moving = plan[i] !== plan[i - 1];
    run = moving && sameBytes(frames[i], frames[i - 1]) ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || (a.length === b.length && a.every((v, i) => v === b[i]));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) all.set(part, (at += part.length) - part.length);
  return all;
}

const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`;
console.log(`date: ${new Date().toISOString()}; load before: ${loadAverage()}; rounds ${ROUNDS}`);
console.log(`page 1280x${HEIGHT}, viewport 1280x720, ${DURATION} ms, scroll ${SCROLL}\n`);
console.log(
  "| format | fps | frames | end to end (median) | of which load | x duration | repeated " +
    "frames while moving | largest gap between distinct output frames (mpdecimate) | size | reference encode | size / reference |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
await recordOnce("mp4"); // warm-up: the browser's first page and ffmpeg's first run
for (const format of FORMATS) {
  const runs = [];
  for (let round = 0; round < ROUNDS; round++) runs.push(await recordOnce(format));
  const last = runs[runs.length - 1];
  const facts = await probeVideo(last.recorded.bytes);
  const times = await distinctFrameTimes(last.recorded.bytes);
  let gap = 0;
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i] - times[i - 1]);
  const reference = await referenceSize(format, last.frames, last.recording.fps);
  const stall = longestStall(last.frames, last.recording);
  const ms = median(runs.map((r) => r.ms));
  console.log(
    `| ${format} | ${last.recording.fps} | ${facts.frames} | ${(ms / 1000).toFixed(1)} s | ` +
      `${(median(runs.map((r) => r.loadedMs)) / 1000).toFixed(1)} s | ` +
      `${(ms / DURATION).toFixed(1)}x | ${stall} | ${Math.round(gap * 1000)} ms ` +
      `(${times.length} distinct) | ${kb(last.recorded.bytes.length)} | ${kb(reference)} | ` +
      `${(last.recorded.bytes.length / reference).toFixed(2)} |`,
  );
}
console.log(`\nload after: ${loadAverage()}`);
await browser.close();
await server.shutdown();
