/**
 * What each way of writing PNG `high` costs and gives, side by side in one run, on the real
 * 1080p screenshot (testing/screenshot_1080p.png) and the photo-like fixture: sharp's own
 * best (zlib 9, adaptive filtering), oxipng as `high` used it before, and the band encoder's
 * strategies (one thread with zlib 9 alone, then as the preset, photo-like bands on libdeflate;
 * then both exporters with their Worker pools). Encoder rows start from
 * decoded pixels; the last three rows are whole exports (decode included), as POST /api/export
 * runs them.
 *
 * deno run -A bench/export_png_trials.ts
 */
import initOxipng, { optimise } from "@jsquash/oxipng/codec/pkg/squoosh_oxipng.js";
import sharp from "sharp";
import { createSharpExporter, createWasmExporter } from "../lib/codecs/exporter.ts";
import { encodeBands } from "../lib/codecs/png_bands.ts";
import { encodePng } from "../lib/codecs/png_encoder.ts";
import { PRESETS } from "../lib/codecs/presets.ts";
import { rgbOf } from "../lib/codecs/pixels.ts";
import { decodeWasm, initWasmCodecs } from "../lib/codecs/wasm.ts";
import { encodeFixture, photoPixels } from "../testing/codecs.ts";
import { loadAverage } from "./support/measure.ts";
import { timeInterleaved } from "./peers/export.ts";

const RUNS = 5;
const MEDIUM = { filter: "adaptive", level: 6 } as const;
const HIGH = PRESETS.high.png;
if (HIGH.mode !== "lossless") throw new Error("PNG high is lossless");

sharp.cache(false);
// Without a module the codec fetches its .wasm beside its script (this bench has read access).
await (initOxipng as () => Promise<unknown>)();
await initWasmCodecs();
const created = await createSharpExporter();
if (!("exporter" in created)) throw new Error(`sharp is needed: ${created.reason}`);
const exporters = { sharp: created.exporter, wasm: createWasmExporter() };
await Promise.all(Object.values(exporters).map((e) => e.warm()));

const inputs = [
  {
    label: "screenshot 1920x1080",
    png: await Deno.readFile(new URL("../testing/screenshot_1080p.png", import.meta.url)),
  },
  { label: "photo-like 1920x1080", png: await encodeFixture(photoPixels(1920, 1080), "png") },
];

console.log(`Load average at start: ${loadAverage()}.\n`);
console.log(
  `Medians of ${RUNS} interleaved runs, wall ms with the process's CPU ms (all threads) in ` +
    "brackets. Ratios are to sharp `.png({ compressionLevel: 9, adaptiveFiltering: true })` of " +
    "the same input (its time includes its decode), and to the previous `high` (oxipng) for size.\n",
);
console.log(
  "| input | approach | ms (CPU) | KB | time / sharp c9 | size / sharp c9 | size / previous high |",
);
console.log("|---|---|---:|---:|---:|---:|---:|");
try {
  for (const input of inputs) {
    const decoded = await decodeWasm("png", input.png);
    const image = { ...decoded, data: rgbOf(decoded.data), channels: 3 as const };
    const medium = encodePng(image, 6);
    // The previous `high`: oxipng level 2 over `medium`, level 1 on photo-like content.
    const photo = medium.length > image.width * image.height * 0.5;
    const request = { format: "png", preset: "high" } as const;
    const sides: Record<string, () => Promise<Uint8Array>> = {
      "sharp c9 adaptive (export)": () =>
        sharp(input.png).png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer(),
      "previous high: adaptive z6 + oxipng": () =>
        Promise.resolve(optimise(encodePng(image, 6), photo ? 1 : 2, false, false)),
      "oxipng level 1 over adaptive z6": () =>
        Promise.resolve(optimise(encodePng(image, 6), 1, false, false)),
      "adaptive filters, zlib 9": () => Promise.resolve(encodePng(image, 9)),
      "no filter, zlib 9": () => Promise.resolve(encodePng(image, 9, "none")),
      "trials per band, zlib 9, one thread": () =>
        Promise.resolve(encodeBands(image, { filter: "best", level: 9, atMost: MEDIUM })),
      "trials per band, photo-like bands libdeflate 10, one thread": () =>
        Promise.resolve(encodeBands(image, HIGH)),
      "new high, sharp path (export)": async () =>
        (await exporters.sharp.export(input.png.slice(), request)).bytes,
      "new high, wasm path (export)": async () =>
        (await exporters.wasm.export(input.png.slice(), request)).bytes,
    };
    const t = await timeInterleaved(RUNS, sides);
    const base = t["sharp c9 adaptive (export)"];
    const previous = t["previous high: adaptive z6 + oxipng"];
    for (const [name, r] of Object.entries(t)) {
      console.log(
        `| ${input.label} | ${name} | ${r.ms.toFixed(0)} (${r.cpu.toFixed(0)}) | ` +
          `${(r.bytes / 1024).toFixed(1)} | ${(r.ms / base.ms).toFixed(2)}x | ` +
          `${(r.bytes / base.bytes).toFixed(3)} | ${(r.bytes / previous.bytes).toFixed(3)} |`,
      );
    }
  }
} finally {
  await Promise.all(Object.values(exporters).map((e) => e.close()));
}
console.log(`\nLoad average at the end: ${loadAverage()}.`);
