/**
 * Full pages of the test page shapes (testing/page_shapes.ts) through the real main.ts:
 * per shape the capture's time, image size, the service's peak RSS (VmHWM, reset before each
 * capture) and its Chromium's (RSS summed over its processes, sampled), beside capture-website
 * on the same pages (each call in a process of its own, measured the same way); then one
 * 3840x24000 capture repeated to show whether memory stays flat.
 *
 *   deno run -A bench/full_page_shapes.ts [--only=shapes,peers,repeat] [--rounds=3] [--repeat=20]
 *     [--shapes=app-shell,long-30000] [--service-root=/path/to/another/checkout]
 */
import { Buffer } from "node:buffer";
import { servePages } from "../testing/capture_fixtures.ts";
import { pngSize } from "../testing/png.ts";
import { shapeRoutes } from "../testing/page_shapes.ts";
import { type Service, startService } from "./load/service.ts";
import { descendantsOf, loadAverage, median, procBytes, rssOf } from "./support/measure.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ONLY = (option("only") ?? "shapes,peers,repeat").split(",");
const ROUNDS = Number(option("rounds") ?? 3);
const REPEAT = Number(option("repeat") ?? 20);
// Another checkout's main.ts instead of this one's (e.g. a worktree of an earlier commit).
const SERVICE_ROOT = option("service-root");
const MB = 1024 * 1024;
// Chromium's processes come and go within a capture; this often catches their peak.
const SAMPLE_MS = 50;

interface Shape {
  name: string;
  path: string;
  scale: number;
}

const SHAPES: Shape[] = [
  { name: "fixed-header", path: "/shapes/fixed-header", scale: 1 },
  { name: "sticky-header", path: "/shapes/sticky-header", scale: 1 },
  { name: "app-shell", path: "/shapes/app-shell", scale: 1 },
  { name: "chat-reverse", path: "/shapes/chat-reverse", scale: 1 },
  { name: "chat-bottom", path: "/shapes/chat-bottom", scale: 1 },
  { name: "docs", path: "/shapes/docs", scale: 1 },
  { name: "both-scroll", path: "/shapes/both", scale: 1 },
  { name: "long-20000", path: "/long/20000-fixed", scale: 1 },
  { name: "long-30000", path: "/long/30000-sticky", scale: 1 },
  { name: "long-40000", path: "/long/40000", scale: 1 },
  { name: "long-12000@2x", path: "/long/12000", scale: 2 },
];
const LARGEST = SHAPES.at(-1)!;
const picked = option("shapes")?.split(",");
const shapes = picked ? SHAPES.filter((s) => picked.includes(s.name)) : SHAPES;

interface Shot {
  ms: number;
  width: number;
  height: number;
  /** Peak RSS of the capturing process (the service, or capture-website's), bytes. */
  processPeak: number;
  /** Peak of the RSS summed over its Chromium's processes, bytes. */
  chromiumPeak: number;
  truncated?: boolean;
}

/** Samples the RSS summed over `pid`'s descendants until stopped; returns the peak. */
function watchChromium(pid: number) {
  let peak = 0;
  const take = () => {
    peak = Math.max(peak, descendantsOf(pid).reduce((sum, kid) => sum + rssOf(kid), 0));
  };
  take();
  const timer = setInterval(take, SAMPLE_MS);
  return () => (clearInterval(timer), take(), peak);
}

/** Resets the kernel's peak-RSS mark of `pid` (VmHWM), so the next read is this capture's. */
function resetPeak(pid: number) {
  Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
}

let client = 0;
async function viaService(service: Service, url: string, scale: number): Promise<Shot> {
  resetPeak(service.pid);
  const stop = watchChromium(service.pid);
  const started = performance.now();
  const res = await fetch(`${service.origin}/api/screenshot`, {
    method: "POST",
    // A client IP per request, so the rate limit does not pace the benchmark.
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": `198.18.7.${++client % 250}`,
    },
    body: JSON.stringify({ url, fullPage: true, scale, forceRefresh: true }),
  });
  const json = await res.json();
  const ms = performance.now() - started;
  const chromiumPeak = stop();
  if (res.status !== 200) throw new Error(`service: HTTP ${res.status} ${json.code} ${json.error}`);
  const size = pngSize(new Uint8Array(Buffer.from(json.screenshot, "base64")));
  return {
    ms,
    ...size,
    processPeak: procBytes(service.pid, "status", "VmHWM"),
    chromiumPeak,
    truncated: json.truncated === true,
  };
}

async function viaCaptureWebsite(url: string, scale: number): Promise<Shot> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "bench/peers/capture_website_full_page.ts", url, String(scale)],
    cwd: new URL("../", import.meta.url).pathname,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stop = watchChromium(child.pid);
  const { code, stdout, stderr } = await child.output();
  const chromiumPeak = stop();
  if (code !== 0) {
    throw new Error(`capture-website: ${new TextDecoder().decode(stderr).slice(-300)}`);
  }
  const line = JSON.parse(new TextDecoder().decode(stdout).trim().split("\n").at(-1)!);
  return { ...line, processPeak: line.peakRss, chromiumPeak };
}

const mb = (bytes: number) => (bytes / MB).toFixed(0);

/** One Markdown row: medians of time and peaks over the rounds, the size of the last shot. */
function row(name: string, tool: string, shots: Shot[]): string {
  const last = shots.at(-1)!;
  const raw = last.width * last.height * 4;
  return `| ${name} | ${tool} | ${median(shots.map((s) => s.ms)).toFixed(0)} | ` +
    `${last.width}x${last.height}${last.truncated ? " (truncated)" : ""} | ${mb(raw)} | ` +
    `${mb(median(shots.map((s) => s.processPeak)))} | ` +
    `${mb(median(shots.map((s) => s.chromiumPeak)))} |`;
}

async function shapesTable(service: Service | undefined, origin: string): Promise<string> {
  const rows: string[] = [];
  for (const shape of shapes) {
    const url = origin + shape.path;
    const tools: [string, () => Promise<Shot>][] = [];
    if (service) tools.push(["service", () => viaService(service, url, shape.scale)]);
    if (ONLY.includes("peers")) {
      tools.push(["capture-website", () => viaCaptureWebsite(url, shape.scale)]);
    }
    const shots = new Map<string, Shot[]>(tools.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of tools) {
        try {
          shots.get(name)!.push(await run());
        } catch (error) {
          rows.push(`| ${shape.name} | ${name} | failed: ${String(error).slice(0, 120)} | | | | |`);
        }
      }
    }
    for (const [name, list] of shots) if (list.length > 0) rows.push(row(shape.name, name, list));
  }
  return [
    `Medians of ${ROUNDS} rounds per shape and tool (one capture each, fullPage, forceRefresh).`,
    "Peak RSS: the capturing process's VmHWM (reset before each service capture; capture-website",
    "runs in a fresh process per call) and the RSS summed over its Chromium's processes, sampled",
    `every ${SAMPLE_MS} ms. Raw image: width x height x 4 bytes.`,
    "",
    "| shape | tool | ms | image | raw image MB | process peak MB | Chromium peak MB |",
    "|---|---|---:|---|---:|---:|---:|",
    ...rows,
  ].join("\n");
}

async function repeatTable(service: Service, origin: string): Promise<string> {
  const url = origin + LARGEST.path;
  const rows: string[] = [];
  const after: number[] = [];
  for (let i = 1; i <= REPEAT; i++) {
    const shot = await viaService(service, url, LARGEST.scale);
    const now = rssOf(service.pid);
    const chromiumNow = descendantsOf(service.pid).reduce((sum, kid) => sum + rssOf(kid), 0);
    after.push(now);
    rows.push(
      `| ${i} | ${shot.ms.toFixed(0)} | ${shot.width}x${shot.height} | ${mb(shot.processPeak)} | ` +
        `${mb(now)} | ${mb(shot.chromiumPeak)} | ${mb(chromiumNow)} |`,
    );
  }
  const window = Math.max(1, Math.floor(REPEAT / 4));
  const first = median(after.slice(0, window));
  const last = median(after.slice(-window));
  return [
    `${REPEAT} captures of ${LARGEST.path} at scale ${LARGEST.scale}, one after another.`,
    "",
    "| # | ms | image | service peak MB | service after MB | Chromium peak MB | Chromium after MB |",
    "|---:|---:|---|---:|---:|---:|---:|",
    ...rows,
    "",
    `Service RSS after a capture: median of the first ${window} ${mb(first)} MB, of the last ` +
    `${window} ${mb(last)} MB (${(last / first).toFixed(2)}x).`,
  ].join("\n");
}

async function main() {
  const logDir = await Deno.makeTempDir({ prefix: "shotline-full-page-" });
  const pages = servePages(shapeRoutes());
  const needsService = ONLY.includes("shapes") || ONLY.includes("repeat");
  let service: Service | undefined;
  try {
    console.log(`# Full-page shapes (${navigator.hardwareConcurrency} cores, shared machine)`);
    console.log(`\n${new Date().toISOString()}; load average at start: ${loadAverage()}`);
    if (needsService) {
      service = await startService(
        {
          KV_PATH: ":memory:",
          TRUST_PROXY_HOPS: "1",
          ALLOW_PRIVATE_NETWORK: "true",
          CAPTURE_TIMEOUT_MS: "120000",
        },
        logDir,
        SERVICE_ROOT,
      );
    }
    if (ONLY.includes("shapes") || ONLY.includes("peers")) {
      const withService = ONLY.includes("shapes") ? service : undefined;
      console.log(`\n## Per shape\n\n${await shapesTable(withService, pages.origin)}`);
    }
    if (ONLY.includes("repeat") && service) {
      console.log(`\n## Repeated largest capture\n\n${await repeatTable(service, pages.origin)}`);
    }
    console.log(`\nLoad average at end: ${loadAverage()}`);
  } finally {
    await service?.stop();
    await pages.close();
    await Deno.remove(logDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
