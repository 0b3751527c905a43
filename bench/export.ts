/**
 * Export benchmark. Prints Markdown tables:
 * 1. median time, CPU and size per format x preset on the real 1080p screenshot and on it
 *    scaled to 3840x2160 (the editor's frame at 2x), both exporters as POST /api/export runs
 *    them (Worker pools included) beside plain sharp at the equivalent setting, with ratios and
 *    CPU time / wall time (above 1 means more than one core worked);
 * 2. median latency of a light POST /api/export over a real socket, idle and while 4 heavy
 *    exports run, for the wasm Worker pool, wasm on the request thread, and sharp.
 * The PNG `high` approaches are compared in bench/export_png_trials.ts.
 *
 * deno run --allow-net --allow-env --allow-read --allow-write --allow-sys --allow-ffi bench/export.ts
 */
import {
  createImageExporter,
  createSharpExporter,
  createWasmExporter,
  type ImageExporter,
} from "../lib/codecs/exporter.ts";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  PALETTE,
  PRESETS,
  QUALITY_PRESETS,
  type QualityPreset,
  WEBP_METHOD,
} from "../lib/codecs/presets.ts";
import { loadSharp, type Sharp } from "../lib/codecs/sharp.ts";
import { encodeFixture, screenshotPixels } from "../testing/codecs.ts";
import { timeInterleaved } from "./peers/export.ts";
import { createTestApp } from "../testing/app.ts";
import { median } from "./support/measure.ts";
import process from "node:process";

const SIZES = [
  { label: "1920x1080", scale: 1, runs: 5 },
  { label: "3840x2160", scale: 2, runs: 3 },
];
const LIGHT_RUNS = 12;
const HEAVY_CONCURRENCY = 4;

const ms = (v: number) => v.toFixed(0);

/** sharp at the setting each preset stands for (PNG: adaptive filters, libpng's best). */
function sharpEquivalent(
  sharp: Sharp,
  input: Uint8Array,
  { format, preset }: { format: ExportFormat; preset: QualityPreset },
) {
  const settings = PRESETS[preset];
  const image = sharp(input);
  if (format === "jpeg") {
    const { quality, chromaSubsample } = settings.jpeg;
    const chromaSubsampling = chromaSubsample === 1 ? "4:4:4" : "4:2:0";
    return image.jpeg({ quality, mozjpeg: true, chromaSubsampling }).toBuffer();
  }
  if (format === "webp") {
    return image.webp({ quality: settings.webpQuality, effort: WEBP_METHOD }).toBuffer();
  }
  const png = settings.png;
  if (png.mode === "palette") {
    const { quality, effort, dither } = PALETTE;
    return image.png({ palette: true, quality, effort, dither, compressionLevel: png.level })
      .toBuffer();
  }
  return image.png({ compressionLevel: png.level, adaptiveFiltering: true }).toBuffer();
}

async function codecTable() {
  const loaded = await loadSharp();
  if (!("sharp" in loaded)) throw new Error(`sharp is needed for the comparison: ${loaded.reason}`);
  const created = await createSharpExporter();
  if (!("exporter" in created)) throw new Error(`sharp is needed: ${created.reason}`);
  const paths = { sharp: created.exporter, wasm: createWasmExporter() };
  await Promise.all(Object.values(paths).map((e) => e.warm()));
  const screenshot = await Deno.readFile(
    new URL("../testing/screenshot_1080p.png", import.meta.url),
  );
  const rows = [
    "| size | format | preset | sharp path ms | wasm path ms | plain sharp ms | time sharp path / plain | time wasm / plain | sharp path KB | wasm KB | plain KB | size sharp path / plain | size wasm / plain | CPU/wall sharp path, wasm, plain |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  try {
    for (const size of SIZES) {
      // 4K: the screenshot scaled 2x by libvips (Lanczos), as a 2x capture of the page would be.
      const input = size.scale === 1 ? screenshot : new Uint8Array(
        await loaded.sharp(screenshot).resize(1920 * size.scale).png().toBuffer(),
      );
      for (const format of EXPORT_FORMATS) {
        for (const preset of QUALITY_PRESETS) {
          const request = { format, preset };
          // slice(): the exporters may transfer (detach) their input to a worker.
          const t = await timeInterleaved(size.runs, {
            sharp: async () => (await paths.sharp.export(input.slice(), request)).bytes,
            wasm: async () => (await paths.wasm.export(input.slice(), request)).bytes,
            plain: () => sharpEquivalent(loaded.sharp, input, request),
          });
          const ratio = (a: number, b: number) => (a / b).toFixed(2);
          const kb = (v: number) => (v / 1024).toFixed(1);
          const cores = (r: { ms: number; cpu: number }) => (r.cpu / r.ms).toFixed(2);
          rows.push(
            `| ${size.label} | ${format} | ${preset} | ${ms(t.sharp.ms)} | ${ms(t.wasm.ms)} | ` +
              `${ms(t.plain.ms)} | ${ratio(t.sharp.ms, t.plain.ms)}x | ` +
              `${ratio(t.wasm.ms, t.plain.ms)}x | ${kb(t.sharp.bytes)} | ${kb(t.wasm.bytes)} | ` +
              `${kb(t.plain.bytes)} | ${ratio(t.sharp.bytes, t.plain.bytes)} | ` +
              `${ratio(t.wasm.bytes, t.plain.bytes)} | ${cores(t.sharp)}, ${cores(t.wasm)}, ` +
              `${cores(t.plain)} |`,
          );
        }
      }
    }
  } finally {
    await Promise.all(Object.values(paths).map((e) => e.close()));
  }
  return [
    `Medians of ${SIZES.map((s) => `${s.runs} (${s.label})`).join(" and ")} interleaved runs ` +
    "after one warm-up each, one export at a time, ms of wall time. Plain sharp: " +
    "`.jpeg({ quality, mozjpeg: true, chromaSubsampling })`, `.webp({ quality, effort: 4 })`, " +
    "`.png({ compressionLevel, adaptiveFiltering: true })` (9 at high, 6 at medium), and at low " +
    "`.png({ palette: true, quality: 80, effort: 7, dither: 1, compressionLevel: 9 })`. " +
    "CPU/wall: the process's CPU time (all threads: Workers and libvips too) over wall time.",
    "",
    ...rows,
  ].join("\n");
}

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

/**
 * CPU time / wall time of two Workers spinning for half a second: the most this process can show
 * on a shared machine just then (2.0 on two idle cores; less while others' processes run).
 */
async function coreCeiling(): Promise<string> {
  const code = "onmessage = (e) => { const end = performance.now() + e.data; " +
    "while (performance.now() < end); postMessage(0); };";
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  const workers = [0, 1].map(() => new Worker(url, { type: "module" }));
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(workers.map((w) =>
    new Promise((done) => {
      w.onmessage = done;
      w.postMessage(500);
    })
  ));
  const used = process.cpuUsage(cpu);
  workers.forEach((w) => w.terminate());
  URL.revokeObjectURL(url);
  return ((used.user + used.system) / 1000 / (performance.now() - started)).toFixed(2);
}

const started = performance.now();
console.log(`Load average at start: ${Deno.loadavg().map((v) => v.toFixed(1)).join(", ")}.`);
console.log(`CPU/wall ceiling (two spinning Workers) at start: ${await coreCeiling()}.\n`);
console.log("## Exports: time, size and cores per format and preset, 1080p and 4K\n");
console.log(await codecTable());
console.log("\n## POST /api/export over HTTP: a light export while heavy ones run\n");
console.log(await latencyTable());
console.log(
  `\nTotal ${((performance.now() - started) / 1000).toFixed(0)} s; load average at ` +
    `the end: ${Deno.loadavg().map((v) => v.toFixed(1)).join(", ")}; CPU/wall ceiling at the ` +
    `end: ${await coreCeiling()}.`,
);
