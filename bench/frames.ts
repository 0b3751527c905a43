/**
 * Framing a cached 1920x1080 capture into each social size, beside sharp compositing the same
 * layers in-process (a gradient background, a blurred shadow, the capture resized with rounded
 * corners, one PNG out). Both start from the capture's PNG bytes and end with a PNG at zlib 6
 * with adaptive filters; runs alternate, medians and their ratio are printed as a Markdown table.
 * The frame runs on both of its codec paths (libvips through sharp, and wasm). Last, the time of a
 * fresh capture of a small loopback page through the service, for scale.
 *
 * deno run -A bench/frames.ts [--runs=N]
 */
import sharp from "sharp";
import { Buffer } from "node:buffer";
import { createFramer, type Framer } from "../lib/frame/framer.ts";
import { SOCIAL_SIZES } from "../lib/frame/design.js";
import { layoutFrame } from "../lib/frame/layout.js";
import { resolveDesign } from "../lib/frame/design.js";
import { encodeFixture, screenshotPixels } from "../testing/codecs.ts";
import { loadAverage, median } from "./support/measure.ts";
import { createTestApp } from "../testing/app.ts";
import { servePages } from "../testing/capture_fixtures.ts";

const RUNS = Number(Deno.args.find((a) => a.startsWith("--runs="))?.slice(7) ?? 15);
const CAPTURE = await encodeFixture(screenshotPixels(1920, 1080), "png");
const DESIGN = { background: "iris", padding: 64, radius: 12, shadow: 40 } as const;

/** The same layers as the frame, composed by libvips: where the frame puts them. */
async function sharpComposite(size: { width: number; height: number }): Promise<Uint8Array> {
  const layout = layoutFrame(resolveDesign({ ...DESIGN, size }), {
    width: 1920,
    height: 1080,
    pixelRatio: 1,
  });
  const { width, height } = layout;
  const { x, y, width: w, height: h } = layout.capture;
  const radius = Math.round(DESIGN.radius * layout.scale);
  const blur = layout.shadow.blur;
  const svg = (body: string, sw = width, sh = height) =>
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${sw}" height="${sh}">${body}</svg>`,
    );
  const background = svg(
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" ` +
      `stop-color="#6a5cff"/><stop offset="1" stop-color="#ff7aa8"/></linearGradient></defs>` +
      `<rect width="${width}" height="${height}" fill="url(#g)"/>`,
  );
  const shadowShape = svg(
    `<rect x="${x}" y="${y + blur / 3}" width="${w}" height="${h}" rx="${radius}" ` +
      `fill="rgb(15,18,30)" fill-opacity="0.45"/>`,
  );
  const mask = svg(`<rect width="${w}" height="${h}" rx="${radius}" fill="#fff"/>`, w, h);
  const [shadow, capture] = await Promise.all([
    sharp(shadowShape).blur(Math.max(0.3, blur / 2)).png().toBuffer(),
    sharp(CAPTURE).resize(w, h).composite([{ input: mask, blend: "dest-in" }]).png()
      .toBuffer(),
  ]);
  return await sharp(background)
    .composite([{ input: shadow }, { input: capture, left: x, top: y }])
    .png({ compressionLevel: 6, adaptiveFiltering: true })
    .toBuffer();
}

async function framed(framer: Framer, size: string): Promise<Uint8Array> {
  const out = await framer.frame({ bytes: CAPTURE }, { ...DESIGN, size }, {
    format: "png",
    preset: "medium",
  });
  return out.bytes;
}

async function time(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const framers: [string, Framer][] = [
  ["sharp", createFramer({ encoder: "sharp" })],
  ["wasm", createFramer({ encoder: "wasm" })],
];

console.log(`Load before: ${loadAverage()}; ${RUNS} alternating runs per row.\n`);
console.log(
  "| Size | Frame path | Frame median | sharp composite median | Ratio | Output bytes (frame / sharp) |",
);
console.log("|---|---|---:|---:|---:|---|");
for (const [name, size] of Object.entries(SOCIAL_SIZES)) {
  for (const [path, framer] of framers) {
    // Warm both (codecs, fonts, libvips' caches) before timing.
    const ours = await framed(framer, name);
    const theirs = await sharpComposite(size);
    const frameTimes: number[] = [];
    const sharpTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      frameTimes.push(await time(() => framed(framer, name)));
      sharpTimes.push(await time(() => sharpComposite(size)));
    }
    const a = median(frameTimes), b = median(sharpTimes);
    console.log(
      `| ${name} ${size.width}x${size.height} | ${path} | ${a.toFixed(1)} ms | ${
        b.toFixed(1)
      } ms | ` +
        `${(a / b).toFixed(2)}x | ${ours.length} / ${theirs.length} |`,
    );
  }
}
// The reference the frame should be far under: rendering the page itself (a fresh capture of a
// small loopback page, 1920x1080, through the service on the local Chromium).
const pages = servePages();
const service = await createTestApp({
  env: { ALLOW_PRIVATE_NETWORK: "true", RATE_LIMIT_PER_MINUTE: "10000" },
});
try {
  const shoot = async () => {
    const res = await service.app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "image/png" },
      body: JSON.stringify({ url: `${pages.origin}/`, forceRefresh: true }),
    });
    await res.arrayBuffer();
  };
  await shoot();
  const captures: number[] = [];
  for (let run = 0; run < Math.min(RUNS, 7); run++) captures.push(await time(shoot));
  console.log(
    `\nA fresh 1920x1080 capture of a loopback page through the service: ` +
      `${median(captures).toFixed(0)} ms median.`,
  );
} finally {
  await service.close();
  await pages.close();
}
console.log(`\nLoad after: ${loadAverage()}`);
