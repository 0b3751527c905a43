/**
 * Export, side by side (part of `deno task bench:peers`): this service's exporters as POST
 * /api/export runs them (lib/codecs/exporter.ts: the sharp path and the wasm Worker-pool path,
 * with the presets of lib/codecs/presets.ts) against plain `sharp` called the way a user would
 * (`.jpeg({ quality, mozjpeg: true })`, `.webp({ quality })`, and for PNG the preset's own
 * settings: `.png({ compressionLevel })`, or `.png({ palette, quality, effort, dither })` at `low`),
 * on the same inputs.
 */
import process from "node:process";
import sharp from "sharp";
import {
  createSharpExporter,
  createWasmExporter,
  type ImageExporter,
} from "../../lib/codecs/exporter.ts";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  PALETTE,
  PRESETS,
  QUALITY_PRESETS,
  type QualityPreset,
} from "../../lib/codecs/presets.ts";
import { encodeFixture, screenshotPixels } from "../../testing/codecs.ts";
import { median } from "../support/measure.ts";

export interface ExportInput {
  label: string;
  png: Uint8Array;
}

/** Plain sharp with the same quality numbers as the preset, everything else left default. */
export function plainSharp(input: Uint8Array, format: ExportFormat, preset: QualityPreset) {
  const image = sharp(input);
  if (format === "jpeg") {
    return image.jpeg({ quality: PRESETS[preset].jpeg.quality, mozjpeg: true }).toBuffer();
  }
  if (format === "webp") return image.webp({ quality: PRESETS[preset].webpQuality }).toBuffer();
  const { mode, level } = PRESETS[preset].png;
  if (mode !== "palette") return image.png({ compressionLevel: level }).toBuffer();
  const { quality, effort, dither } = PALETTE;
  return image.png({ palette: true, quality, effort, dither, compressionLevel: level }).toBuffer();
}

/**
 * Each side once untimed, then `runs` rounds interleaved, so machine noise hits all alike.
 * Medians of wall time and of the process's CPU time (all threads: Workers and libvips too),
 * which other load on the machine barely changes.
 */
export async function timeInterleaved(
  runs: number,
  sides: Record<string, () => Promise<Uint8Array>>,
) {
  const result: Record<string, { ms: number[]; cpu: number[]; bytes: number }> = {};
  for (const [name, work] of Object.entries(sides)) {
    result[name] = { ms: [], cpu: [], bytes: (await work()).length };
  }
  for (let i = 0; i < runs; i++) {
    for (const [name, work] of Object.entries(sides)) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      await work();
      result[name].ms.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      result[name].cpu.push((used.user + used.system) / 1000);
    }
  }
  return Object.fromEntries(
    Object.entries(result).map((
      [name, r],
    ) => [name, { ms: median(r.ms), cpu: median(r.cpu), bytes: r.bytes }]),
  );
}

/** The synthetic 1920x1080 screenshot of testing/codecs.ts, as the editor uploads it. */
export async function syntheticInput(): Promise<ExportInput> {
  return {
    label: "synthetic 1920x1080 screenshot",
    png: await encodeFixture(screenshotPixels(1920, 1080), "png"),
  };
}

/** Time and size per format and preset; returns the Markdown table. */
export async function exportSideBySide(
  inputs: ExportInput[],
  runs: number,
  formats: readonly ExportFormat[] = EXPORT_FORMATS,
): Promise<string> {
  const loaded = await createSharpExporter();
  if (!("exporter" in loaded)) return `sharp could not load here: ${loaded.reason}`;
  const ours: Record<string, ImageExporter> = {
    sharp: loaded.exporter,
    wasm: createWasmExporter(),
  };
  await Promise.all(Object.values(ours).map((e) => e.warm()));
  const rows: string[] = [];
  try {
    for (const input of inputs) {
      for (const format of formats) {
        for (const preset of QUALITY_PRESETS) {
          const request = { format, preset };
          // slice(): the wasm exporter may transfer (detach) its input to a worker.
          const { viaSharp, viaWasm, plain } = await timeInterleaved(runs, {
            viaSharp: async () => (await ours.sharp.export(input.png.slice(), request)).bytes,
            viaWasm: async () => (await ours.wasm.export(input.png.slice(), request)).bytes,
            plain: () => plainSharp(input.png, format, preset),
          });
          const kb = (n: number) => (n / 1024).toFixed(0);
          rows.push(
            `| ${input.label} | ${format} | ${preset} | ${viaSharp.ms.toFixed(0)} | ` +
              `${viaWasm.ms.toFixed(0)} | ${plain.ms.toFixed(0)} | ` +
              `${(viaSharp.ms / plain.ms).toFixed(2)}x | ${
                (viaWasm.ms / plain.ms).toFixed(2)
              }x | ` +
              `${kb(viaSharp.bytes)} | ${kb(viaWasm.bytes)} | ${kb(plain.bytes)} | ` +
              `${(viaSharp.bytes / plain.bytes).toFixed(2)}x | ` +
              `${(viaWasm.bytes / plain.bytes).toFixed(2)}x |`,
          );
        }
      }
    }
  } finally {
    await Promise.all(Object.values(ours).map((e) => e.close()));
  }
  return [
    `Medians of ${runs} interleaved runs after one warm-up each, one export at a time; ` +
    "sharp's operation cache is off for both (the service turns it off process-wide). Ours = " +
    "the exporters " +
    "POST /api/export uses (scheduler included; wasm = jSquash in the Worker pool). Plain " +
    "sharp = `.jpeg({ quality, mozjpeg: true })`, `.webp({ quality })` with the preset's " +
    "quality number; `.png({ compressionLevel })` or, at low, `.png({ palette: true, quality, " +
    "effort, dither })` with the preset's settings. Ratios: ours / plain sharp (time: lower is faster; size: lower " +
    "is smaller).",
    "",
    "| input | format | preset | ours sharp ms | ours wasm ms | plain sharp ms | " +
    "time sharp/plain | time wasm/plain | ours sharp KB | ours wasm KB | plain KB | " +
    "size sharp/plain | size wasm/plain |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}
