/**
 * Capture formats, one run, printed as Markdown (bench/README.md):
 * (a) a photo-heavy page (a canvas of smooth gradients and grain, like a photograph) at 1920x1080
 *     and as a 1920x6000 full page: Chromium's own PNG, JPEG q80 and WebP q80 screenshots (time and
 *     size) vs sharp encoding the very same pixels at q80 (the re-encoding path would add that to
 *     the PNG shot plus a decode);
 * (b) raw bytes vs JSON: the body of a 1080p and a 16384 px capture, as bytes and as base64 in
 *     JSON (size, and the time to build the JSON body);
 * (c) the page metadata read (page/metadata.ts) on a warm page.
 * The same shots of a flat page of the same size give the raster and read-back floor, so the
 * encode's own share is the photo shot minus the flat one.
 *
 *   deno run -A bench/capture_format.ts [--rounds=7]
 */
import type { Page } from "puppeteer-core";
import { Buffer } from "node:buffer";
import { loadSharp } from "../lib/codecs/sharp.ts";
import { readPageMetadata } from "../lib/capture/page/metadata.ts";
import { loadAverage, median } from "./support/measure.ts";
import { launchBenchChromium } from "./peers/capture.ts";
import { photoPage } from "./support/photo_page.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 7);

// The photo page with metadata in its head, for the metadata read below.
const photoWithMetadata = (height: number) =>
  photoPage(
    height,
    `<meta name="description" content="A photo-heavy page."><link rel="icon" href="/icon.svg">
<meta property="og:image" content="/card.jpg"><meta name="theme-color" content="#224466">`,
  );

// The same layout with nothing to encode: one flat colour (the shot's raster and read-back floor).
const flatPage = (height: number) =>
  `<!doctype html><body style="margin:0"><div style="height:${height}px;background:#808080">`;

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
  const url = new URL(request.url);
  const height = Number(url.searchParams.get("h") ?? 1080);
  const body = url.pathname === "/flat" ? flatPage(height) : photoWithMetadata(height);
  return new Response(body, { headers: { "content-type": "text/html" } });
});
const origin = `http://127.0.0.1:${server.addr.port}`;
const loaded = await loadSharp();
if (!("sharp" in loaded)) throw new Error(`sharp: ${loaded.reason}`);
const { sharp } = loaded;

const browser = await launchBenchChromium();

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** Medians of ROUNDS shots of `page` in each way, with sizes. */
async function formats(page: Page, height: number) {
  const clip = height > 1080 ? { x: 0, y: 0, width: 1920, height } : undefined;
  const shot = (type: "png" | "jpeg" | "webp") =>
    page.screenshot({
      type,
      optimizeForSpeed: true,
      ...(type !== "png" ? { quality: 80 } : {}),
      ...(clip ? { clip, captureBeyondViewport: true } : {}),
    });
  const rows: Record<string, { ms: number[]; bytes: number }> = {};
  const add = (name: string, ms: number, bytes: number) =>
    (rows[name] ??= { ms: [], bytes }).ms.push(ms);
  for (let round = 0; round < ROUNDS + 1; round++) {
    const png = await timed(() => shot("png"));
    const jpeg = await timed(() => shot("jpeg"));
    const webp = await timed(() => shot("webp"));
    const raw = await sharp(png.value).raw().toBuffer({ resolveWithObject: true });
    const input = () => sharp(raw.data, { raw: raw.info });
    const sharpJpeg = await timed(() => input().jpeg({ quality: 80 }).toBuffer());
    const sharpWebp = await timed(() => input().webp({ quality: 80 }).toBuffer());
    const decode = await timed(() => sharp(png.value).raw().toBuffer());
    if (round === 0) continue; // warm-up
    add("Chromium PNG shot", png.ms, png.value.length);
    add("Chromium JPEG q80 shot", jpeg.ms, jpeg.value.length);
    add("Chromium WebP q80 shot", webp.ms, webp.value.length);
    add("sharp JPEG q80 encode (same pixels)", sharpJpeg.ms, sharpJpeg.value.length);
    add("sharp WebP q80 encode (same pixels)", sharpWebp.ms, sharpWebp.value.length);
    add("re-encode path: PNG shot + decode + sharp JPEG", png.ms + decode.ms + sharpJpeg.ms, 0);
  }
  return rows;
}

console.log(`date: ${new Date().toISOString()}; load before: ${loadAverage()}; rounds ${ROUNDS}\n`);
const page = await browser.newPage();
await page.setViewport({ width: 1920, height: 1080, deviceScaleFactor: 1 });
const bodies: Record<string, Uint8Array> = {};
for (const height of [1080, 6000]) {
  await page.goto(`${origin}/?h=${height}`, { waitUntil: "load" });
  const flat = await browser.newPage();
  await flat.setViewport({ width: 1920, height: 1080, deviceScaleFactor: 1 });
  await flat.goto(`${origin}/flat?h=${height}`, { waitUntil: "load" });
  const floor = await formats(flat, height);
  await flat.close();
  const rows = await formats(page, height);
  rows["Chromium JPEG q80 shot of a flat page (floor)"] = floor["Chromium JPEG q80 shot"];
  rows["Chromium WebP q80 shot of a flat page (floor)"] = floor["Chromium WebP q80 shot"];
  console.log(`\n### ${height === 1080 ? "1920x1080 viewport" : "1920x6000 full page"}\n`);
  console.log("| way | median ms | bytes |\n| --- | ---: | ---: |");
  for (const [name, row] of Object.entries(rows)) {
    console.log(`| ${name} | ${median(row.ms).toFixed(0)} | ${row.bytes || ""} |`);
  }
  const ratio = (a: string, b: string) => (median(rows[a].ms) / median(rows[b].ms)).toFixed(2);
  const encode = (shot: string, flat: string, sharpRow: string) =>
    ((median(rows[shot].ms) - median(rows[flat].ms)) / median(rows[sharpRow].ms)).toFixed(2);
  console.log(
    `\n(Chromium shot - flat shot) / sharp encode: JPEG ${
      encode(
        "Chromium JPEG q80 shot",
        "Chromium JPEG q80 shot of a flat page (floor)",
        "sharp JPEG q80 encode (same pixels)",
      )
    }, WebP ${
      encode(
        "Chromium WebP q80 shot",
        "Chromium WebP q80 shot of a flat page (floor)",
        "sharp WebP q80 encode (same pixels)",
      )
    }`,
  );
  console.log(
    `\nChromium JPEG shot / sharp JPEG encode: ${
      ratio("Chromium JPEG q80 shot", "sharp JPEG q80 encode (same pixels)")
    }; WebP: ${ratio("Chromium WebP q80 shot", "sharp WebP q80 encode (same pixels)")}`,
  );
  if (height === 1080) {
    bodies["1080p PNG"] = await page.screenshot({ type: "png", optimizeForSpeed: true });
    bodies["1080p JPEG q80"] = await page.screenshot({ type: "jpeg", quality: 80 });
  }
}
await page.goto(`${origin}/?h=16384`, { waitUntil: "load" });
const tall = { clip: { x: 0, y: 0, width: 1920, height: 16384 }, captureBeyondViewport: true };
bodies["16384 px PNG"] = await page.screenshot({ type: "png", optimizeForSpeed: true, ...tall });
bodies["16384 px JPEG q80"] = await page.screenshot({ type: "jpeg", quality: 80, ...tall });

console.log("\n### Raw bytes vs JSON\n");
console.log("| capture | raw bytes | JSON bytes | JSON / raw | JSON body build ms (median) |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [name, bytes] of Object.entries(bodies)) {
  const times: number[] = [];
  let size = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const { ms, value } = await timed(() =>
      Promise.resolve(
        new TextEncoder().encode(
          JSON.stringify({ screenshot: Buffer.from(bytes).toString("base64"), format: "png" }),
        ),
      )
    );
    times.push(ms);
    size = value.length;
  }
  console.log(
    `| ${name} | ${bytes.length} | ${size} | ${(size / bytes.length).toFixed(2)} | ${
      median(times).toFixed(1)
    } |`,
  );
}

console.log("\n### Page metadata on a warm page\n");
await page.goto(`${origin}/?h=1080`, { waitUntil: "load" });
const metadataMs: number[] = [];
for (let i = 0; i < 30; i++) metadataMs.push((await timed(() => readPageMetadata(page))).ms);
console.log(`readPageMetadata median ${median(metadataMs).toFixed(2)} ms over 30 reads`);
console.log(`\nload after: ${loadAverage()}`);
await browser.close();
await server.shutdown();
