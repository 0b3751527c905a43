/**
 * Media proxy and post lookup figures, printed as a Markdown table:
 * - throughput of a 200 MB video/mp4 through the proxy vs. straight from the same local upstream
 *   vs. nginx proxy_pass to it, if installed (alternating runs, medians; target: proxy >= 0.8x
 *   direct), and CPU seconds per GB of the service and of nginx;
 * - RSS growth of the service process while it streams (target: < 32 MB), read from
 *   /proc/<pid>/status of the service, which runs as its own `deno run` subprocess;
 * - median latency of a cached GET /api/post/{id} over a socket (target: < 5 ms).
 *
 *   deno run -A bench/proxy.ts [--rounds=3] [--service-v8-flags=<flags>|none]
 *
 * The service runs with the V8 flags of `deno task start` unless others are given.
 */
import { NGINX, startNginx } from "./peers_proxy.ts";
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
const SERVER = new URL("./proxy_server.ts", import.meta.url).pathname;
const CONFIG = new URL("../deno.json", import.meta.url).pathname;

interface Child {
  process: Deno.ChildProcess;
  origin: string;
}

async function spawn(v8Flags: string | undefined, ...args: string[]): Promise<Child> {
  const flags = v8Flags ? [`--v8-flags=${v8Flags}`] : [];
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...flags, "--config", CONFIG, SERVER, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = process.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`bench server ${args[0]} exited before listening`);
    line += value;
  }
  reader.releaseLock();
  const { port } = JSON.parse(line.split("\n")[0]);
  return { process, origin: `http://127.0.0.1:${port}` };
}

async function stop(child: Child) {
  child.process.kill("SIGTERM");
  await child.process.status;
  await child.process.stdout.cancel().catch(() => {});
}

/** User + system CPU seconds the process has used so far. */
function cpuOf(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of nginx's master and workers (their pids: the master's file and its children). */
function nginxCpuTotal(dir: string): number {
  const master = Number(Deno.readTextFileSync(`${dir}/nginx.pid`).trim());
  const children = Deno.readTextFileSync(`/proc/${master}/task/${master}/children`)
    .trim().split(/\s+/).filter(Boolean).map(Number);
  return [master, ...children].reduce((sum, pid) => sum + cpuOf(pid), 0);
}

function rssOf(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Downloads `url`, counting bytes; returns seconds taken and the peak RSS seen meanwhile. */
async function download(url: string, watchPid?: number) {
  let peak = watchPid ? rssOf(watchPid) : 0;
  const sampler = watchPid
    ? setInterval(() => (peak = Math.max(peak, rssOf(watchPid))), RSS_SAMPLE_MS)
    : undefined;
  const started = performance.now();
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
  let bytes = 0;
  for await (const chunk of res.body!) bytes += chunk.byteLength;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (watchPid) peak = Math.max(peak, rssOf(watchPid));
  return { seconds, bytes, peak };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main() {
  const upstream = await spawn(undefined, "upstream");
  const service = await spawn(SERVICE_V8_FLAGS, "service", upstream.origin);
  const pid = service.process.pid;
  const video = encodeURIComponent("https://video.twimg.com/ext_tw_video/1/pu/vid/bench.mp4");
  const direct = `${upstream.origin}/bench.mp4`;
  const proxied = `${service.origin}/api/image-proxy?url=${video}`;
  const raw = `${service.origin}/__bench/raw`;
  const nginxDir = await Deno.makeTempDir({ prefix: "shotline-nginx-" });
  const nginx = await Deno.stat(NGINX).then(
    () => startNginx(Number(new URL(upstream.origin).port), nginxDir, true),
    () => null,
  );
  const viaNginx = nginx && `${nginx.origin}/bench.mp4`;
  try {
    // Warm-up: JIT, connection pools and the allocator, so the baseline is the steady state.
    await download(`${direct}?mb=20`);
    await download(`${proxied}${encodeURIComponent("?mb=20")}`);
    const baseline = rssOf(pid);

    const directMbps: number[] = [];
    const proxyMbps: number[] = [];
    const rawMbps: number[] = [];
    const nginxMbps: number[] = [];
    const growths: number[] = [];
    let proxyCpu = 0;
    let nginxCpu = 0;
    if (viaNginx) await download(`${viaNginx}?mb=20`);
    for (let round = 0; round < ROUNDS; round++) {
      const d = await download(direct);
      const cpu = cpuOf(pid);
      const p = await download(proxied, pid);
      proxyCpu += cpuOf(pid) - cpu;
      const r = await download(raw);
      if ([d, p, r].some((x) => x.bytes !== 200 * MB)) throw new Error("short download");
      directMbps.push(d.bytes / MB / d.seconds);
      proxyMbps.push(p.bytes / MB / p.seconds);
      rawMbps.push(r.bytes / MB / r.seconds);
      growths.push((p.peak - baseline) / MB);
      if (viaNginx) {
        const before = nginxCpuTotal(nginxDir);
        const n = await download(viaNginx);
        nginxCpu += nginxCpuTotal(nginxDir) - before;
        nginxMbps.push(n.bytes / MB / n.seconds);
      }
    }

    const lookup = `${service.origin}/api/post/20`;
    await (await fetch(lookup)).arrayBuffer(); // the miss that fills the cache
    const latencies: number[] = [];
    for (let i = 0; i < LOOKUPS; i++) {
      const started = performance.now();
      const res = await fetch(lookup);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`post lookup: HTTP ${res.status}`);
      latencies.push(performance.now() - started);
    }
    const sorted = [...latencies].sort((a, b) => a - b);

    const ratio = median(proxyMbps) / median(directMbps);
    const growth = Math.max(...growths);
    const lookupMs = median(latencies);
    const rows = [
      ["Direct from upstream, 200 MB video/mp4", `${fmt(median(directMbps))} MB/s`, ""],
      ["Through /api/image-proxy, 200 MB", `${fmt(median(proxyMbps))} MB/s`, ""],
      ["Proxy / direct throughput", `${fmt(ratio, 2)}x`, check(ratio >= 0.8, ">= 0.8x")],
      [
        "Reference: bare Deno.serve(fetch body) pass-through / direct",
        `${fmt(median(rawMbps) / median(directMbps), 2)}x`,
        "",
      ],
      [
        "nginx proxy_pass (defaults), 200 MB",
        viaNginx ? `${fmt(median(nginxMbps))} MB/s` : "nginx not installed",
        "",
      ],
      [
        "Proxy / nginx throughput",
        viaNginx ? `${fmt(median(proxyMbps) / median(nginxMbps), 2)}x` : "",
        "",
      ],
      ["Service CPU per GB proxied", `${fmt(proxyCpu / (ROUNDS * 0.2 * 1.024), 2)} s`, ""],
      [
        "nginx CPU per GB proxied (master and workers)",
        viaNginx ? `${fmt(nginxCpu / (ROUNDS * 0.2 * 1.024), 2)} s` : "",
        "",
      ],
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
      ["Cached post lookup, p95", `${fmt(sorted[Math.floor(LOOKUPS * 0.95)], 2)} ms`, ""],
    ];
    const flags = SERVICE_V8_FLAGS ? `service V8 flags ${SERVICE_V8_FLAGS}` : "default V8 flags";
    console.log(`Media proxy and post lookups (${ROUNDS} alternating rounds, medians, ${flags})\n`);
    console.log("| Measure | Value | Target |\n|---|---|---|");
    for (const row of rows) console.log(`| ${row.join(" | ")} |`);
    console.log(
      `\nPer round MB/s: direct ${directMbps.map((v) => fmt(v)).join(", ")}; ` +
        `proxy ${proxyMbps.map((v) => fmt(v)).join(", ")}; ` +
        `raw pass-through ${rawMbps.map((v) => fmt(v)).join(", ")}; ` +
        `nginx ${nginxMbps.map((v) => fmt(v)).join(", ")}`,
    );
  } finally {
    await nginx?.stop();
    await Deno.remove(nginxDir, { recursive: true }).catch(() => {});
    await stop(service);
    await stop(upstream);
  }
}

function check(ok: boolean, target: string): string {
  return `${target} ${ok ? "(met)" : "(MISSED)"}`;
}

if (import.meta.main) await main();
