/**
 * Media proxy and post lookup figures, printed as a Markdown table:
 * - throughput of a 200 MB video/mp4 through the proxy vs. straight from the same local upstream
 *   (alternating runs, medians; target: proxy >= 0.8x direct);
 * - RSS growth of the service process while it streams (target: < 32 MB), read from
 *   /proc/<pid>/status of the service, which runs as its own `deno run` subprocess;
 * - median latency of a cached GET /api/post/{id} over a socket (target: < 5 ms).
 *
 *   deno run -A bench/proxy.ts [--rounds=3] [--service-v8-flags=<flags>|none]
 *
 * The service runs with the V8 flags of `deno task start` unless others are given. `download`
 * and `interleavedRounds` are the one throughput measurement; bench/peers/proxy.ts reuses them.
 */
import { spawnJsonChild } from "../testing/json_child.ts";
import { cpuSecondsOf, median, quantile, rssOf } from "./support/measure.ts";
import { START_V8_FLAGS } from "./start_flags.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 3);
// As `deno task start` runs the service, unless told otherwise ("none" for V8's defaults).
const requestedV8Flags = option("service-v8-flags") ?? START_V8_FLAGS;
const SERVICE_V8_FLAGS = requestedV8Flags === "none" ? undefined : requestedV8Flags;
const LOOKUPS = 500;
const RSS_SAMPLE_MS = 10;
const MB = 1024 * 1024;
const SERVER = "bench/support/proxy_server.ts";

export interface Download {
  /** ms to the first body byte. */
  ttfb: number;
  /** ms to the last body byte. */
  ms: number;
  bytes: number;
  /** With a watched process: its peak RSS (bytes) and the CPU seconds it used meanwhile. */
  peakRss?: number;
  cpuSeconds?: number;
}

/** Fetches `url`, reading the whole body; with `watchPid`, that process's RSS and CPU too. */
export async function download(url: string, watchPid?: number): Promise<Download> {
  const cpuBefore = watchPid ? cpuSecondsOf(watchPid) : 0;
  let peak = watchPid ? rssOf(watchPid) : 0;
  const sampler = watchPid
    ? setInterval(() => (peak = Math.max(peak, rssOf(watchPid))), RSS_SAMPLE_MS)
    : undefined;
  const started = performance.now();
  try {
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
    const reader = res.body!.getReader();
    let ttfb = 0;
    let bytes = 0;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (bytes === 0) ttfb = performance.now() - started;
        bytes += value.byteLength;
      }
    } catch (error) {
      throw new Error(`${url}: body cut after ${bytes} bytes`, { cause: error });
    }
    const ms = performance.now() - started;
    if (!watchPid) return { ttfb, ms, bytes };
    peak = Math.max(peak, rssOf(watchPid));
    return { ttfb, ms, bytes, peakRss: peak, cpuSeconds: cpuSecondsOf(watchPid) - cpuBefore };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Throughput of the same large body over several paths (direct, through the proxy, through a
 * peer...): every round downloads each path once, in the same order, so machine load hits all
 * of them alike. Every body must be exactly `bytes` long.
 */
export async function interleavedRounds(
  paths: Record<string, string>,
  options: { rounds: number; bytes: number; watch?: { path: string; pid: number } },
): Promise<Record<string, Download[]>> {
  const results: Record<string, Download[]> = {};
  for (const name of Object.keys(paths)) results[name] = [];
  for (let round = 0; round < options.rounds; round++) {
    for (const [name, url] of Object.entries(paths)) {
      const pid = options.watch?.path === name ? options.watch.pid : undefined;
      const result = await download(url, pid);
      if (result.bytes !== options.bytes) throw new Error(`${name}: short body`);
      results[name].push(result);
    }
  }
  return results;
}

/** MB/s of one download. */
export const mbps = (d: Download) => d.bytes / MB / (d.ms / 1000);

const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main() {
  const upstream = await spawnJsonChild<{ port: number }>(SERVER, { args: ["upstream"] });
  const upstreamOrigin = `http://127.0.0.1:${upstream.info.port}`;
  const service = await spawnJsonChild<{ port: number }>(SERVER, {
    args: ["service", upstreamOrigin],
    v8Flags: SERVICE_V8_FLAGS,
  });
  const origin = `http://127.0.0.1:${service.info.port}`;
  const pid = service.pid;
  const video = encodeURIComponent("https://video.twimg.com/ext_tw_video/1/pu/vid/bench.mp4");
  const direct = `${upstreamOrigin}/bench.mp4`;
  const proxied = `${origin}/api/image-proxy?url=${video}`;
  const raw = `${origin}/__bench/raw`;
  try {
    // Warm-up: JIT, connection pools and the allocator, so the baseline is the steady state.
    await download(`${direct}?mb=20`);
    await download(`${proxied}${encodeURIComponent("?mb=20")}`);
    const baseline = rssOf(pid);

    const rounds = await interleavedRounds({ direct, proxied, raw }, {
      rounds: ROUNDS,
      bytes: 200 * MB,
      watch: { path: "proxied", pid },
    });
    const directMbps = rounds.direct.map(mbps);
    const proxyMbps = rounds.proxied.map(mbps);
    const rawMbps = rounds.raw.map(mbps);
    const growths = rounds.proxied.map((p) => (p.peakRss! - baseline) / MB);
    const proxyCpu = rounds.proxied.reduce((sum, p) => sum + p.cpuSeconds!, 0);

    const lookup = `${origin}/api/post/20`;
    await (await fetch(lookup)).arrayBuffer(); // the miss that fills the cache
    const latencies: number[] = [];
    for (let i = 0; i < LOOKUPS; i++) {
      const started = performance.now();
      const res = await fetch(lookup);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`post lookup: HTTP ${res.status}`);
      latencies.push(performance.now() - started);
    }

    const ratio = median(proxyMbps) / median(directMbps);
    const growth = Math.max(...growths);
    const lookupMs = median(latencies);
    const rows = [
      ["Direct from upstream, 200 MB video/mp4", `${fmt(median(directMbps))} MB/s`, ""],
      ["Through /api/image-proxy, 200 MB", `${fmt(median(proxyMbps))} MB/s`, ""],
      ["Proxy / direct throughput", `${fmt(ratio, 2)}x`, check(ratio >= 0.8, ">= 0.8x")],
      [
        "Reference: unguarded Rust pass-through / direct",
        `${fmt(median(rawMbps) / median(directMbps), 2)}x`,
        "",
      ],
      ["Service CPU per GB proxied", `${fmt(proxyCpu / (ROUNDS * 0.2 * 1.024), 2)} s`, ""],
      ["Service RSS after warm-up", `${fmt(baseline / MB)} MB`, ""],
      [
        "Service RSS growth while streaming (worst round's peak)",
        `${fmt(growth)} MB (median ${fmt(median(growths))} MB)`,
        check(growth < 32, "< 32 MB"),
      ],
      [
        `Cached post lookup, median of ${LOOKUPS}`,
        `${fmt(lookupMs, 2)} ms`,
        check(lookupMs < 5, "< 5 ms"),
      ],
      ["Cached post lookup, p95", `${fmt(quantile(latencies, 0.95), 2)} ms`, ""],
    ];
    const flags = SERVICE_V8_FLAGS ? `service V8 flags ${SERVICE_V8_FLAGS}` : "default V8 flags";
    console.log(`Media proxy and post lookups (${ROUNDS} alternating rounds, medians, ${flags})\n`);
    console.log("| Measure | Value | Target |\n|---|---|---|");
    for (const row of rows) console.log(`| ${row.join(" | ")} |`);
    console.log(
      `\nPer round MB/s: direct ${directMbps.map((v) => fmt(v)).join(", ")}; ` +
        `proxy ${proxyMbps.map((v) => fmt(v)).join(", ")}; ` +
        `raw pass-through ${rawMbps.map((v) => fmt(v)).join(", ")}`,
    );
  } finally {
    await service.stop();
    await upstream.stop();
  }
}

function check(ok: boolean, target: string): string {
  return `${target} ${ok ? "(met)" : "(MISSED)"}`;
}

if (import.meta.main) await main();
