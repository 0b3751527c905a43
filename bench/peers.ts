/**
 * `deno task bench:peers`: this service against what a user would pick instead, one run,
 * loopback only, printed as Markdown tables with medians and ratios.
 * - Capture: the real main.ts vs `capture-website` (npm) vs the bare CDP floor.
 * - Export: our exporters (sharp path, wasm path) vs plain `sharp`.
 * - Proxy: /api/image-proxy vs nginx (apt) vs direct.
 *
 *   deno task bench:peers [--only=capture,export,proxy] [--rounds=5] [--export-runs=5]
 *
 * A peer that cannot run here is reported in its section with the reason; the others still run.
 */
import { Buffer } from "node:buffer";
import { type Service, startService } from "./load/service.ts";
import { loadAverage } from "./support/measure.ts";
import { captureSideBySide } from "./peers/capture.ts";
import { type ExportInput, exportSideBySide, syntheticInput } from "./peers/export.ts";
import { proxySideBySide } from "./peers/proxy.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ONLY = (option("only") ?? "capture,export,proxy").split(",");
const ROUNDS = Number(option("rounds") ?? 5);
const EXPORT_RUNS = Number(option("export-runs") ?? 3);
const PROXY_ROUNDS = 5;
const SMALL_RUNS = 30;

/** A real 1920x1080 capture by the service of a text page, as a second export input. */
async function capturedInput(service: Service): Promise<ExportInput> {
  const page = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    new Response(
      `<!doctype html><meta charset="utf-8"><body style="font:16px sans-serif;margin:24px">` +
        `<h1 style="background:#07c;color:#fff;padding:16px">Docs</h1>` +
        "<p>Screenshots of real pages are mostly text on flat colour. ".repeat(400),
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ));
  try {
    const res = await fetch(`${service.origin}/api/screenshot`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "198.18.8.1" },
      body: JSON.stringify({ url: `http://127.0.0.1:${page.addr.port}/` }),
    });
    const json = await res.json();
    if (res.status !== 200) throw new Error(`capture for the export input: HTTP ${res.status}`);
    return {
      label: "Chromium capture of a text page, 1920x1080",
      png: new Uint8Array(Buffer.from(json.screenshot, "base64")),
    };
  } finally {
    await page.shutdown();
  }
}

async function section(title: string, work: () => Promise<string>) {
  const started = performance.now();
  console.log(`\n## ${title}\n\nLoad average at start: ${loadAverage()}\n`);
  try {
    console.log(await work());
  } catch (error) {
    // A peer that cannot run is a result too: say exactly why, keep the other sections.
    console.log(`Could not run: ${error instanceof Error ? error.stack : String(error)}`);
    Deno.exitCode = 1;
  }
  console.log(
    `\nLoad average at end: ${loadAverage()}; ${
      ((performance.now() - started) / 1000).toFixed(0)
    } s.`,
  );
}

async function main() {
  const logDir = await Deno.makeTempDir({ prefix: "shotline-peers-" });
  let service: Service | undefined;
  try {
    console.log(`# Side by side (${navigator.hardwareConcurrency} cores, shared machine)`);
    if (ONLY.includes("capture") || ONLY.includes("export")) {
      service = await startService({
        KV_PATH: ":memory:",
        TRUST_PROXY_HOPS: "1",
        ALLOW_PRIVATE_NETWORK: "true",
      }, logDir);
    }
    if (ONLY.includes("capture")) {
      await section("Capture", () => captureSideBySide(service!, ROUNDS));
    }
    if (ONLY.includes("export")) {
      await section("Export", async () => {
        const inputs = [await syntheticInput(), await capturedInput(service!)];
        await service?.stop(); // its Chromium would only add noise to the codec timings
        service = undefined;
        return exportSideBySide(inputs, EXPORT_RUNS);
      });
    }
    await service?.stop();
    service = undefined;
    if (ONLY.includes("proxy")) {
      await section("Proxy", () => proxySideBySide(PROXY_ROUNDS, SMALL_RUNS));
    }
  } finally {
    await service?.stop();
    await Deno.remove(logDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
