/**
 * Export benchmark. Prints Markdown tables:
 * 1. median time and output size per format x preset on synthetic 1920x1080 and 375x667
 *    screenshots (PNG input, as the editor uploads), wasm path vs sharp path, with ratios;
 * 2. the PNG presets on a real Chromium screenshot and a photo-like image: both exporters (as
 *    POST /api/export runs them) and plain sharp at the same settings, with low/medium ratios;
 * 3. median latency of a light POST /api/export over a real socket, idle and while 4 heavy
 *    exports run, for the wasm Worker pool, wasm on the request thread, and sharp.
 *
 * deno run --allow-net --allow-env --allow-read --allow-write --allow-sys --allow-ffi bench/export.ts
 */
import {
  createImageExporter,
  createSharpExporter,
  createWasmExporter,
  type ImageExporter,
} from "../lib/codecs/exporter.ts";
import { planExport } from "../lib/codecs/plan.ts";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  QUALITY_PRESETS,
  type QualityPreset,
} from "../lib/codecs/presets.ts";
import { exportWithSharp, loadSharp } from "../lib/codecs/sharp.ts";
import { decodeWasm, exportWithWasm, initWasmCodecs } from "../lib/codecs/wasm.ts";
import { encodeFixture, photoPixels, screenshotPixels } from "../tests/codecs/fixtures.ts";
import { meanAbsoluteError } from "../tests/codecs/inspect.ts";
import { plainSharp, timeInterleaved } from "./peers_export.ts";
import { createTestApp } from "../tests/helpers/app.ts";
import { median } from "./measure.ts";

const SIZES = [
  { label: "1920x1080", width: 1920, height: 1080, runs: 5 },
  { label: "375x667", width: 375, height: 667, runs: 9 },
];
const LIGHT_RUNS = 12;
const HEAVY_CONCURRENCY = 4;

const ms = (v: number) => v.toFixed(0);
const kb = (v: number) => (v / 1024).toFixed(1);

async function timeRuns(runs: number, fn: () => Promise<Uint8Array>) {
  const size = (await fn()).length; // warm-up, not timed
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return { ms: median(times), size };
}

async function codecTable() {
  const loaded = await loadSharp();
  if (!("sharp" in loaded)) throw new Error(`sharp is needed for the comparison: ${loaded.reason}`);
  await initWasmCodecs();
  const rows = [
    "| image | format | preset | wasm ms | sharp ms | wasm/sharp time | wasm KB | sharp KB | size ratio |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const size of SIZES) {
    const input = await encodeFixture(screenshotPixels(size.width, size.height), "png");
    for (const format of EXPORT_FORMATS) {
      for (const preset of QUALITY_PRESETS) {
        const plan = planExport(input, { format, preset });
        // Both paths measured on the calling thread: codec cost only, no worker hand-off.
        const wasm = await timeRuns(size.runs, () => exportWithWasm(input.slice(), plan));
        // Lossless PNG: libpng's adaptive filters here (the service uses the band encoder).
        const sharp = await timeRuns(
          size.runs,
          () => exportWithSharp(loaded.sharp, { input, plan }),
        );
        rows.push(
          `| ${size.label} | ${format} | ${preset} | ${ms(wasm.ms)} | ${ms(sharp.ms)} | ` +
            `${(wasm.ms / sharp.ms).toFixed(2)}x | ${kb(wasm.size)} | ${kb(sharp.size)} | ` +
            `${(wasm.size / sharp.size).toFixed(3)} |`,
        );
      }
    }
  }
  return rows.join("\n");
}

const PNG_RUNS = 5;

/** PNG presets on a real screenshot and a photo-like image: exporters vs plain sharp. */
async function pngPresetTable() {
  const created = await createSharpExporter();
  if (!("exporter" in created)) throw new Error(`sharp is needed: ${created.reason}`);
  const paths = { sharp: created.exporter, wasm: createWasmExporter() };
  await Promise.all(Object.values(paths).map((e) => e.warm()));
  const inputs = [
    {
      label: "real screenshot 1920x1080",
      png: await Deno.readFile(new URL("../tests/codecs/screenshot_1080p.png", import.meta.url)),
    },
    { label: "photo-like 1920x1080", png: await encodeFixture(photoPixels(1920, 1080), "png") },
  ];
  const rows = [
    "| input | preset | ours sharp ms (CPU) | ours wasm ms (CPU) | plain sharp ms (CPU) | ours sharp KB | ours wasm KB | plain sharp KB | size wasm/sharp | MAE sharp / wasm |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  const notes = [];
  try {
    for (const input of inputs) {
      const source = await decodeWasm("png", input.png);
      const kb: Record<string, Record<QualityPreset, number>> = { sharp: {}, wasm: {} } as never;
      for (const preset of QUALITY_PRESETS) {
        const request = { format: "png" as const, preset };
        const outputs: Record<string, Uint8Array> = {};
        const keep = (name: string) => async () =>
          outputs[name] = (await paths[name as "sharp" | "wasm"].export(input.png.slice(), request))
            .bytes;
        const t = await timeInterleaved(PNG_RUNS, {
          sharp: keep("sharp"),
          wasm: keep("wasm"),
          plain: () => plainSharp(input.png, "png", preset),
        });
        const mae = async (bytes: Uint8Array) =>
          Math.max(...meanAbsoluteError(await decodeWasm("png", bytes), source)).toFixed(2);
        kb.sharp[preset] = t.sharp.bytes;
        kb.wasm[preset] = t.wasm.bytes;
        rows.push(
          `| ${input.label} | ${preset} | ${ms(t.sharp.ms)} (${ms(t.sharp.cpu)}) | ` +
            `${ms(t.wasm.ms)} (${ms(t.wasm.cpu)}) | ${ms(t.plain.ms)} (${ms(t.plain.cpu)}) | ` +
            `${kb1(t.sharp.bytes)} | ${kb1(t.wasm.bytes)} | ` +
            `${kb1(t.plain.bytes)} | ${(t.wasm.bytes / t.sharp.bytes).toFixed(3)} | ` +
            `${await mae(outputs.sharp)} / ${await mae(outputs.wasm)} |`,
        );
      }
      notes.push(
        `${input.label}: low/medium ${(kb.sharp.low / kb.sharp.medium).toFixed(3)} (sharp), ` +
          `${(kb.wasm.low / kb.wasm.medium).toFixed(3)} (wasm); high/medium ` +
          `${(kb.sharp.high / kb.sharp.medium).toFixed(3)} (sharp), ` +
          `${(kb.wasm.high / kb.wasm.medium).toFixed(3)} (wasm).`,
      );
    }
  } finally {
    await Promise.all(Object.values(paths).map((e) => e.close()));
  }
  return [
    `Medians of ${PNG_RUNS} interleaved runs; wall ms with the process's CPU ms (all threads) in ` +
    "brackets. MAE: largest per-channel mean absolute error " +
    "against the input. Plain sharp: `.png({ compressionLevel })` (9 for high, 6 for medium), " +
    "`.png({ palette: true, quality: 80, effort: 7, dither: 1, compressionLevel: 9 })` for low.",
    "",
    ...rows,
    "",
    ...notes,
  ].join("\n");
}

const kb1 = (v: number) => (v / 1024).toFixed(1);

interface Upload {
  bytes: Uint8Array;
  format: ExportFormat;
  preset: QualityPreset;
}

async function post(url: string, upload: Upload): Promise<number> {
  const body = new FormData();
  body.set("image", new File([upload.bytes.slice()], "screenshot.png", { type: "image/png" }));
  body.set("format", upload.format);
  body.set("qualityPreset", upload.preset);
  const started = performance.now();
  const res = await fetch(url, { method: "POST", body });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`export answered ${res.status}`);
  return performance.now() - started;
}

/** Light-request latency over a real socket, idle and with HEAVY_CONCURRENCY heavy exports. */
async function latencyRow(label: string, exporter: ImageExporter, light: Upload, heavy: Upload) {
  const { app, close } = await createTestApp({ deps: { exporter } });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}/api/export`;
  try {
    await post(url, light);
    await post(url, heavy);
    const idle = [];
    for (let i = 0; i < LIGHT_RUNS; i++) idle.push(await post(url, light));
    let loading = true;
    let heavyDone = 0;
    const heavyLoop = async () => {
      while (loading) await post(url, heavy).then(() => heavyDone++);
    };
    const loops = Array.from({ length: HEAVY_CONCURRENCY }, heavyLoop);
    const loaded = [];
    for (let i = 0; i < LIGHT_RUNS; i++) loaded.push(await post(url, light));
    loading = false;
    await Promise.all(loops);
    return `| ${label} | ${ms(median(idle))} | ${ms(median(loaded))} | ` +
      `${(median(loaded) / median(idle)).toFixed(1)}x | ${heavyDone} |`;
  } finally {
    await server.shutdown();
    await exporter.close();
    await close();
  }
}

async function latencyTable() {
  const light: Upload = {
    bytes: await encodeFixture(screenshotPixels(375, 667), "png"),
    format: "webp",
    preset: "medium",
  };
  const heavy: Upload = {
    bytes: await encodeFixture(screenshotPixels(1920, 1080, 11), "png"),
    format: "jpeg",
    preset: "high",
  };
  const pool = createWasmExporter();
  await pool.warm();
  const inline = createWasmExporter({ inline: true });
  await inline.warm();
  const sharp = await createImageExporter();
  return [
    `Light: 375x667 PNG -> WebP medium. Heavy: 1920x1080 PNG -> JPEG high, ` +
    `${HEAVY_CONCURRENCY} in flight at all times. ${LIGHT_RUNS} light requests each, ` +
    `${navigator.hardwareConcurrency} cores.`,
    "",
    "| exporter | light alone, median ms | light with 4 heavy, median ms | slowdown | heavy exports finished meanwhile |",
    "|---|---:|---:|---:|---:|",
    await latencyRow("wasm, Worker pool", pool, light, heavy),
    await latencyRow("wasm, request thread (no pool)", inline, light, heavy),
    await latencyRow(`${sharp.encoder} (auto choice)`, sharp, light, heavy),
  ].join("\n");
}

const started = performance.now();
console.log(`Load average at start: ${Deno.loadavg().map((v) => v.toFixed(1)).join(", ")}.\n`);
console.log("## Codecs: median time and size per format and preset (PNG input)\n");
console.log(await codecTable());
console.log("\n## PNG presets: a real screenshot and a photo-like image, both paths\n");
console.log(await pngPresetTable());
console.log("\n## POST /api/export over HTTP: a light export while heavy ones run\n");
console.log(await latencyTable());
console.log(
  `\nTotal ${((performance.now() - started) / 1000).toFixed(0)} s; load average at ` +
    `the end: ${Deno.loadavg().map((v) => v.toFixed(1)).join(", ")}.`,
);
