/**
 * Capture benchmark, one run, printed as Markdown tables:
 * (a) median latency of a warm capture of a simple loopback page through POST /api/screenshot
 *     (forceRefresh, real socket) against the floor, a bare CDP Page.navigate + load +
 *     Page.captureScreenshot on the same browser and a reused page, interleaved round by round
 *     (target: HTTP <= 1.25x floor); capturer.capture() alone is timed too, to split the gap;
 * (b) cache-hit latency of a 1920x1080 capture over HTTP (target < 10 ms), small and ~1 MB PNG;
 * (c) captures per second at client concurrency 1, 2 and 4 with MAX_CONCURRENT_CAPTURES=2 (the
 *     default) and 4;
 * (d) RSS of this Deno process (service + page server + client) and of Chromium's process tree
 *     after 10 and after 300 renders (target: flat within 100 MB).
 *
 *   deno run -A bench/capture.ts [--rounds=25] [--total=300]
 *   deno run -A --v8-flags=--expose-gc bench/capture.ts   (heap figures after a full GC)
 *
 * The service is the real app over the real capturer (as main.ts builds it) on a file-backed
 * Deno KV in a temp dir; the floor page lives in a context of the capturer's own browser, found
 * by watching puppeteer.launch, so both sides go through the same egress proxy.
 */
import type { Capturer } from "../lib/capture/types.ts";
import { benchCapturer, serveBenchApp } from "./support/bench_capturer.ts";
import { openCdpFloor } from "./cdp_floor.ts";
import { descendantsOf, loadAverage, median, procBytes, quantile } from "./support/measure.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 25);
const TOTAL_RENDERS = Number(option("total") ?? 300);
const EARLY_RENDERS = 10;
const HITS = 60;
const THROUGHPUT_CAPTURES = 20;
// Lets the pool prepare its next context between timed captures, as it would between users.
const GAP_MS = 450;
const MB = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const p90 = (values: number[]) => quantile(values, 0.9);
const fixed = (value: number, digits = 0) => value.toFixed(digits);

// --- the pages -----------------------------------------------------------------------------
const SIMPLE = `<!doctype html><html><head><meta charset="utf-8">` +
  `<meta name="viewport" content="width=device-width"><style>body{font:16px sans-serif}</style>` +
  `</head><body><h1>Hello</h1><p>A simple page.</p></body></html>`;
// Incompressible pixels, so the PNG is about as heavy as a busy real page's (~1 MB).
const NOISE = `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0">` +
  `<canvas id="c" width="640" height="480"></canvas><script>
    const c = document.getElementById("c").getContext("2d");
    const img = c.createImageData(640, 480);
    for (let i = 0; i < img.data.length; i++) img.data[i] = (i & 3) === 3 ? 255 : Math.random() * 256;
    c.putImageData(img, 0, 0);
  </script></body></html>`;
const pageServer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
  const body = new URL(request.url).pathname === "/noise" ? NOISE : SIMPLE;
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
});
const pageOrigin = `http://127.0.0.1:${pageServer.addr.port}`;

// --- the service ---------------------------------------------------------------------------
// Spy on launches so the floor can use the very browser the capturer launched.
const { launched, log, clock, kvDir, store, capturer } = await benchCapturer();
let renders = 0;
const counted: Capturer = {
  capture: (job, signal) => (renders++, capturer.capture(job, signal)),
  status: () => capturer.status(),
  close: () => capturer.close(),
};

const serveApp = (maxConcurrent: number) =>
  serveBenchApp({ capture: counted, store, log, clock }, maxConcurrent);
const service2 = await serveApp(2);
const service4 = await serveApp(4);

let serial = 0;
const pageUrl = (path = "/") => `${pageOrigin}${path}?n=${++serial}`;

/** One POST /api/screenshot; returns ms taken and the response body. */
async function shoot(endpoint: string, body: Record<string, unknown>) {
  const started = performance.now();
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${JSON.stringify(json)}`);
  return { ms, json };
}

// --- memory ---------------------------------------------------------------------------------
/** One reading of both processes' memory. */
function memorySample() {
  const pid = capturer.browserPid();
  const tree = pid ? [pid, ...descendantsOf(pid)] : [];
  const sum = (file: string, ...fields: string[]) =>
    tree.reduce((total, p) => total + procBytes(p, file, ...fields), 0);
  return {
    renders,
    deno: Deno.memoryUsage().rss,
    heap: Deno.memoryUsage().heapUsed,
    chromiumRss: sum("status", "VmRSS"),
    // Private pages only: PSS would move whenever another Chromium on the machine starts or
    // stops (it shares the binary's pages), which says nothing about ours.
    chromiumPrivate: sum("smaps_rollup", "Private_Clean", "Private_Dirty"),
    processes: tree.length,
  };
}
type Memory = ReturnType<typeof memorySample>;

/** The median of five readings over two seconds, field by field, once closed contexts are gone. */
async function memory(): Promise<Memory> {
  await sleep(1_000);
  // Only with --v8-flags=--expose-gc: separates garbage not yet collected from retained memory.
  (globalThis as { gc?: () => void }).gc?.();
  const samples: Memory[] = [];
  for (let i = 0; i < 5; i++) {
    if (i) await sleep(500);
    samples.push(memorySample());
  }
  const fields = Object.keys(samples[0]) as (keyof Memory)[];
  return Object.fromEntries(fields.map((f) => [f, median(samples.map((s) => s[f]))])) as Memory;
}

// --- (a) warm capture vs the floor ---------------------------------------------------------
const loadStart = loadAverage();
const benchStarted = performance.now();
await shoot(service2.endpoint, { url: pageUrl() }); // launches the browser
const browser = launched.at(-1);
if (!browser) throw new Error("the capturer's browser launch was not observed");
const floorContext = await browser.createBrowserContext();
const floorPage = await floorContext.newPage();
await floorPage.setViewport({ width: 1920, height: 1080, deviceScaleFactor: 1 });
await floorPage.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "light" }]);
const cdpFloor = await openCdpFloor(floorPage);

async function floor(url: string): Promise<number> {
  const started = performance.now();
  await cdpFloor.capture(url);
  return performance.now() - started;
}
async function direct(url: string): Promise<number> {
  const started = performance.now();
  await counted.capture({ url, deviceType: "desktop", colorScheme: "light" });
  return performance.now() - started;
}
const http = async (url: string) =>
  (await shoot(service2.endpoint, { url, forceRefresh: true })).ms;

while (renders < EARLY_RENDERS) await shoot(service2.endpoint, { url: pageUrl() });
const early = await memory();

const sides = { floor, direct, http };
const times: Record<keyof typeof sides, number[]> = { floor: [], direct: [], http: [] };
const order = Object.keys(sides) as (keyof typeof sides)[];
for (let round = -3; round < ROUNDS; round++) {
  // Rotate the order so no side always runs right after another's background work.
  for (let i = 0; i < order.length; i++) {
    const side = order[(i + Math.max(round, 0)) % order.length];
    const ms = await sides[side](pageUrl());
    if (round >= 0) times[side].push(ms); // the first rounds only warm up
    await sleep(GAP_MS);
  }
}
// --- (b) cache hits ------------------------------------------------------------------------
const hitRows: string[] = [];
for (const path of ["/", "/noise"]) {
  const url = pageUrl(path);
  const first = await shoot(service2.endpoint, { url });
  const bytes = Math.floor(first.json.screenshot.length * 3 / 4);
  const hits: number[] = [];
  for (let i = -5; i < HITS; i++) {
    const { ms, json } = await shoot(service2.endpoint, { url });
    if (!json.cached) throw new Error("expected a cache hit");
    if (i >= 0) hits.push(ms);
  }
  hitRows.push(
    `| ${path === "/" ? "simple page" : "noise page"} | ${fixed(bytes / 1024)} KB | ` +
      `${fixed(median(hits), 1)} | ${fixed(p90(hits), 1)} | ${HITS} |`,
  );
}

// --- (c) throughput ------------------------------------------------------------------------
async function throughput(endpoint: string, concurrency: number) {
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < THROUGHPUT_CAPTURES) {
      latencies.push((await shoot(endpoint, { url: pageUrl() })).ms);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: THROUGHPUT_CAPTURES / seconds, median: median(latencies) };
}
const settings = [
  { service: service2, max: 2, concurrency: 1 },
  { service: service2, max: 2, concurrency: 2 },
  { service: service2, max: 2, concurrency: 4 },
  { service: service4, max: 4, concurrency: 2 },
  { service: service4, max: 4, concurrency: 4 },
];
const passes = settings.map(() => [] as { perSecond: number; median: number }[]);
// Two passes, the second in reverse order, so a burst of load elsewhere does not favour a row.
for (const order of [settings.keys(), [...settings.keys()].reverse()]) {
  for (const i of order) {
    await sleep(GAP_MS);
    passes[i].push(await throughput(settings[i].service.endpoint, settings[i].concurrency));
  }
}
const throughputRows = settings.map(({ max, concurrency }, i) => {
  const [a, b] = passes[i];
  return `| ${max} | ${concurrency} | ${fixed((a.perSecond + b.perSecond) / 2, 2)} | ` +
    `${fixed(a.perSecond, 2)} / ${fixed(b.perSecond, 2)} | ${fixed((a.median + b.median) / 2)} |`;
});

// --- (d) keep rendering up to TOTAL_RENDERS, then memory again -----------------------------
const variants = [["desktop", "light"], ["mobile", "dark"], ["desktop", "dark"], [
  "mobile",
  "light",
]];
await Promise.all([0, 1].map(async () => {
  while (renders < TOTAL_RENDERS) {
    const [deviceType, colorScheme] = variants[renders % variants.length];
    await shoot(service2.endpoint, { url: pageUrl(), deviceType, colorScheme });
  }
}));
const late = await memory();
const loadEnd = loadAverage();
const minutes = (performance.now() - benchStarted) / 60_000;

// --- report --------------------------------------------------------------------------------
const footer = `Load average (1/5/15 min): ${loadStart} at start, ${loadEnd} at end; ` +
  `${navigator.hardwareConcurrency} cores; ${await browser.version()}; ${fixed(minutes, 1)} min; ` +
  // glibc keeps freed memory in per-thread arenas; this setting changes Deno's RSS a lot.
  `MALLOC_ARENA_MAX=${Deno.env.get("MALLOC_ARENA_MAX") ?? "unset"}.`;
const floorMs = median(times.floor);
const growth = Object.fromEntries(
  Object.entries(late).map(([k, v]) => [k, v - early[k as keyof Memory]]),
) as Memory;
const memoryRow = (label: string, m: Memory) =>
  `| ${label} | ${m.renders} | ${fixed(m.deno / MB)} | ${fixed(m.heap / MB)} | ` +
  `${fixed(m.chromiumRss / MB)} | ${fixed(m.chromiumPrivate / MB)} | ${m.processes} |`;
const row = (label: string, values: number[]) =>
  `| ${label} | ${fixed(median(values))} | ${fixed(p90(values))} | ` +
  `${fixed(median(values) / floorMs, 2)}x | ${values.length} |`;
console.log(`### Warm capture of a simple page, desktop 1920x1080 (interleaved rounds)

| path | median ms | p90 ms | vs floor | n |
|---|---:|---:|---:|---:|
${row("floor: bare CDP navigate + load + captureScreenshot, reused page", times.floor)}
${row("capturer.capture() (pooled fresh context, wait ladder)", times.direct)}
${row("POST /api/screenshot forceRefresh over a socket", times.http)}

Target: HTTP at most 1.25x the floor -> ${fixed(median(times.http) / floorMs, 2)}x (${
  median(times.http) / floorMs <= 1.25 ? "met" : "NOT met"
}).

### Cache hit, desktop 1920x1080 over a socket (target < 10 ms)

| page | PNG | median ms | p90 ms | n |
|---|---:|---:|---:|---:|
${hitRows.join("\n")}

### Throughput: ${THROUGHPUT_CAPTURES} distinct simple pages per row and pass

| MAX_CONCURRENT_CAPTURES | client concurrency | captures/s | pass 1 / pass 2 | median latency ms |
|---:|---:|---:|---:|---:|
${throughputRows.join("\n")}

### Memory (Chromium: summed over the browser's process tree; RSS counts shared pages in every process, private counts only pages no other process maps)

| after | renders | Deno RSS MB | Deno heap used MB | Chromium RSS MB | Chromium private MB | Chromium processes |
|---|---:|---:|---:|---:|---:|---:|
${memoryRow(`${EARLY_RENDERS} captures`, early)}
${memoryRow(`${TOTAL_RENDERS} captures`, late)}
${memoryRow("growth", growth)}

${footer}`);

await cdpFloor.close();
await floorContext.close();
await service2.server.shutdown();
await service4.server.shutdown();
await service2.t.close();
await service4.t.close();
await capturer.close();
await store.close();
await pageServer.shutdown();
await Deno.remove(kvDir, { recursive: true });
