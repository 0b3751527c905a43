/**
 * Scale-down for MCP clients (lib/codecs/fit.ts) on both codec paths. Prints a Markdown table:
 * per input and path, the median time of fitImage, the longest stretch the calling thread was
 * blocked (the wasm path decodes and averages on it), and what came out.
 *
 * Inputs: a synthetic full page at the capture cap (1920x16384, over the 8000 px side) and a
 * desktop capture at scale 3 (5760x3240: within the side, over the 5 MiB of base64).
 *
 * deno run --allow-read --allow-env --allow-sys --allow-ffi bench/fit.ts
 */
import { createSharpExporter, createWasmExporter } from "../lib/codecs/exporter.ts";
import type { ImageExporter } from "../lib/codecs/exporter.ts";
import { fitImage } from "../lib/codecs/fit.ts";
import { CLIENT_IMAGE_LIMITS } from "../lib/mcp/result_items.ts";
import { encodeFixture, screenshotPixels } from "../testing/codecs.ts";
import { median } from "./support/measure.ts";

const RUNS = 5;

/** Runs `work` while a timer measures the longest gap between its ticks (the thread's blocking). */
async function withLag<T>(work: () => Promise<T>): Promise<{ result: T; maxLagMs: number }> {
  let last = performance.now();
  let maxLagMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxLagMs = Math.max(maxLagMs, now - last - 5);
    last = now;
  }, 5);
  try {
    return { result: await work(), maxLagMs };
  } finally {
    clearInterval(timer);
  }
}

async function exporters(): Promise<Array<[string, ImageExporter]>> {
  const list: Array<[string, ImageExporter]> = [["wasm", createWasmExporter()]];
  const sharp = await createSharpExporter();
  if ("exporter" in sharp) list.unshift(["sharp", sharp.exporter]);
  else console.error(`sharp unavailable: ${sharp.reason}`);
  for (const [, exporter] of list) await exporter.warm();
  return list;
}

const inputs: Array<[string, Uint8Array]> = [
  ["full page 1920x16384", await encodeFixture(screenshotPixels(1920, 16384), "png")],
  ["desktop at 3x, 5760x3240", await encodeFixture(screenshotPixels(5760, 3240), "png")],
];

console.log("| Input (PNG bytes) | Path | Median | Longest block of the thread | Out |");
console.log("|---|---|---:|---:|---|");
for (const [path, exporter] of await exporters()) {
  for (const [name, input] of inputs) {
    const times: number[] = [];
    const lags: number[] = [];
    let out = "";
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const { result, maxLagMs } = await withLag(() =>
        fitImage(input, { limits: CLIENT_IMAGE_LIMITS, exporter })
      );
      times.push(performance.now() - started);
      lags.push(maxLagMs);
      out = result
        ? `${result.width}x${result.height} ${result.format}, ${result.bytes.length} B`
        : "as is";
    }
    const ms = (v: number) => `${Math.round(v)} ms`;
    console.log(
      `| ${name} (${input.length}) | ${path} | ${ms(median(times))} | ${
        ms(median(lags))
      } | ${out} |`,
    );
  }
  await exporter.close();
}
