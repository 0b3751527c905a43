/**
 * Admission fairness when a big PNG spreads its bands over idle slots: a 1080p export's latency
 * alone and while a 4K PNG export runs again and again, on both paths, and the 4K export's own
 * time and CPU/wall (above 1: more than one core).
 *
 * deno run -A bench/export_fairness.ts
 */
import { createSharpExporter, createWasmExporter } from "../lib/codecs/exporter.ts";
import { loadSharp } from "../lib/codecs/sharp.ts";
import { loadAverage, median } from "./support/measure.ts";
import { timeInterleaved } from "./peers/export.ts";
import { encodeFixture, photoPixels } from "../testing/codecs.ts";

const ms = (v: number) => v.toFixed(0);

const FAIR_RUNS = 6;

/**
 * A 1080p WebP export (a regular slot's job) alone and while a 4K export that spreads its bands
 * runs again and again: the 4K job borrows the idle slot for its bands and gives it back after a
 * band. Heavy kinds: PNG `high` of the screenshot (zlib bands), of a photo-like frame (libdeflate
 * bands, the longest), and PNG `low` (palette bands on the wasm path; one libvips job on sharp).
 */
async function fairnessTable() {
  const loaded = await loadSharp();
  if (!("sharp" in loaded)) throw new Error(loaded.reason);
  const screenshot = await Deno.readFile(
    new URL("../testing/screenshot_1080p.png", import.meta.url),
  );
  const big = new Uint8Array(await loaded.sharp(screenshot).resize(3840).png().toBuffer());
  const photo = await encodeFixture(photoPixels(3840, 2160), "png");
  const heavyKinds = [
    { label: "4K screenshot, PNG high", input: big, preset: "high" },
    { label: "4K photo-like, PNG high", input: photo, preset: "high" },
    { label: "4K screenshot, PNG low", input: big, preset: "low" },
  ] as const;
  const created = await createSharpExporter();
  if (!("exporter" in created)) throw new Error(created.reason);
  const rows = [
    "| path | heavy export | 1080p WebP medium alone, ms | same while the heavy one runs, ms | heavy alone, ms (CPU/wall) |",
    "|---|---|---:|---:|---:|",
  ];
  for (
    const [label, exporter] of [["sharp", created.exporter], [
      "wasm",
      createWasmExporter(),
    ]] as const
  ) {
    await exporter.warm();
    const light = async () => {
      const started = performance.now();
      await exporter.export(screenshot.slice(), { format: "webp", preset: "medium" });
      return performance.now() - started;
    };
    try {
      await light();
      for (const kind of heavyKinds) {
        const heavy = () =>
          exporter.export(kind.input.slice(), { format: "png", preset: kind.preset });
        const alone = [];
        for (let i = 0; i < FAIR_RUNS; i++) alone.push(await light());
        const t = await timeInterleaved(3, { heavy: async () => (await heavy()).bytes });
        let running = true;
        const loop = (async () => {
          while (running) await heavy();
        })();
        const during = [];
        for (let i = 0; i < FAIR_RUNS; i++) {
          await new Promise((resolve) => setTimeout(resolve, 150)); // land inside a heavy export
          during.push(await light());
        }
        running = false;
        await loop;
        rows.push(
          `| ${label} | ${kind.label} | ${ms(median(alone))} | ${ms(median(during))} | ` +
            `${ms(t.heavy.ms)} (${(t.heavy.cpu / t.heavy.ms).toFixed(2)}) |`,
        );
      }
    } finally {
      await exporter.close();
    }
  }
  return [
    `Medians of ${FAIR_RUNS} light exports, ${navigator.hardwareConcurrency} cores.`,
    "",
    ...rows,
  ].join("\n");
}

console.log(`Load average at start: ${loadAverage()}.\n`);
console.log(await fairnessTable());
console.log(`\nLoad average at the end: ${loadAverage()}.`);
