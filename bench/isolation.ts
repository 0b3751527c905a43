/**
 * What isolation costs, on a real docs page (the Rust std index from the local rustup docs,
 * served from loopback under a fresh path prefix per capture so nothing is cached between
 * captures), printed as Markdown:
 * (a) the cost table: one capture's phases, wall and CPU, isolated (fresh context) vs reused page;
 * (b) throughput in interleaved rounds: a bare loop reusing two pages (one per window, the
 *     reference), the same loop alternating two sites (a new renderer per navigation), a bare loop with a fresh context per capture, a bare loop reusing two pages
 *     with a wipe between captures (cost only: not a complete wipe), and the service over HTTP
 *     (forceRefresh, distinct URLs, default settle) at MAX_CONCURRENT_CAPTURES=2 and 3, and at 2
 *     with settle: false (what the settle adds);
 * (c) warm single-capture latency, service vs the bare CDP floor, interleaved;
 * (d) memory of both processes after 10 and after --total service captures.
 *
 *   deno run -A bench/isolation.ts [--seconds=15] [--rounds=3] [--total=300] [--phases=12]
 */
import type { Page } from "puppeteer-core";
import { benchCapturer, serveBenchApp } from "./support/bench_capturer.ts";
import { openCdpFloor } from "./cdp_floor.ts";
import { descendantsOf, loadAverage, median, procBytes } from "./support/measure.ts";
import {
  isolatedPhases,
  phaseRows,
  type PhaseTable,
  reusedPhases,
} from "./support/isolation_phases.ts";

const option = (name: string, fallback: number) =>
  Number(
    Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback,
  );
const SECONDS = option("seconds", 15);
const ROUNDS = option("rounds", 3);
const TOTAL = option("total", 300);
const PHASE_RUNS = option("phases", 12);
const DOCS = Deno.env.get("RUST_DOCS") ??
  "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html";
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// --- the docs, under /<n>/ ------------------------------------------------------------------
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css",
  js: "text/javascript",
  woff2: "font/woff2",
  svg: "image/svg+xml",
  png: "image/png",
  json: "application/json",
};
const docs = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  const path = new URL(request.url).pathname.replace(/^\/\d+\//, "/");
  if (path.includes("..")) return new Response(null, { status: 400 });
  try {
    const body = await Deno.readFile(`${DOCS}${path}`);
    const type = TYPES[path.split(".").pop() ?? ""] ?? "application/octet-stream";
    return new Response(body, { headers: { "content-type": type } });
  } catch {
    return new Response(null, { status: 404 });
  }
});
let serial = 0;
const docsUrl = (host = "127.0.0.1") =>
  `http://${host}:${docs.addr.port}/${++serial}/std/index.html`;
// 127.0.0.1 and localhost are different sites: a reused page then changes renderer process on
// every navigation, as it would across a gallery of different sites.
const otherSiteUrl = () => docsUrl(serial % 2 ? "localhost" : "127.0.0.1");

// --- the service, and its browser for the bare loops -----------------------------------------
const { launched, log, clock, kvDir, store, capturer } = await benchCapturer();

const serveApp = (maxConcurrent: number) =>
  serveBenchApp({ capture: capturer, store, log, clock }, maxConcurrent);
const services = { 2: await serveApp(2), 3: await serveApp(3) };

async function shoot(endpoint: string, url: string, settle = true): Promise<void> {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url, forceRefresh: true, ...(settle ? {} : { settle: false }) }),
  });
  const json = await response.json();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${JSON.stringify(json)}`);
}

const loadStart = loadAverage();
const started = performance.now();
await shoot(services[2].endpoint, docsUrl()); // launches the browser
const browser = launched.at(-1)!;
const browserPid = browser.process()!.pid!;

// The same settle as the phase table: load, then fonts.
const LOADED = `new Promise((resolve) => document.readyState === "complete"
  ? resolve() : addEventListener("load", resolve, { once: true })).then(() => document.fonts.ready)
  .then(() => true)`;
async function shootPage(page: Page, url = docsUrl()): Promise<void> {
  await page.goto(url, { waitUntil: "domcontentloaded" });
  await page.evaluate(LOADED);
  const png = await page.screenshot({ type: "png", optimizeForSpeed: true });
  JSON.stringify({ screenshot: new Uint8Array(png).toBase64() });
}
// The bare loops go direct, as a bare puppeteer loop would (the service pays the egress proxy).
const DIRECT = { proxyServer: "direct://" };
async function ownWindowPage(): Promise<Page> {
  const context = await browser.createBrowserContext(DIRECT);
  const page = await context.newPage();
  await page.setViewport({ width: 1920, height: 1080, deviceScaleFactor: 1 });
  return page;
}
const reusedPages = [await ownWindowPage(), await ownWindowPage()];
const wipedPages = [await ownWindowPage(), await ownWindowPage()];

// Clears what CDP can clear for the page's origin and context (not HSTS, not permissions, not
// the renderer's memory cache, not sessionStorage of the tab): measures what a wipe costs.
async function wipe(page: Page): Promise<void> {
  const cdp = await page.createCDPSession();
  const origin = new URL(page.url()).origin;
  await Promise.all([
    cdp.send("Network.clearBrowserCookies"),
    cdp.send("Network.clearBrowserCache"),
    cdp.send("Storage.clearDataForOrigin", { origin, storageTypes: "all" }),
  ]);
  await cdp.detach();
}

type Worker = (index: number) => Promise<void>;
const variants: Record<string, { concurrency: number; one: Worker }> = {
  "bare loop, two reused pages (one per window): reference": {
    concurrency: 2,
    one: (i) => shootPage(reusedPages[i]),
  },
  "bare loop, two reused pages, sites alternating (127.0.0.1, localhost)": {
    concurrency: 2,
    one: (i) => shootPage(reusedPages[i], otherSiteUrl()),
  },
  "bare loop, fresh context per capture": {
    concurrency: 2,
    one: async () => {
      const context = await browser.createBrowserContext(DIRECT);
      const page = await context.newPage();
      await page.setViewport({ width: 1920, height: 1080, deviceScaleFactor: 1 });
      await shootPage(page);
      await context.close();
    },
  },
  "bare loop, two reused pages + CDP wipe (incomplete; cost only)": {
    concurrency: 2,
    one: async (i) => {
      await shootPage(wipedPages[i]);
      await wipe(wipedPages[i]);
    },
  },
  "service, HTTP forceRefresh, MAX_CONCURRENT_CAPTURES=2": {
    concurrency: 2,
    one: () => shoot(services[2].endpoint, docsUrl()),
  },
  "service, settle: false, MAX_CONCURRENT_CAPTURES=2": {
    concurrency: 2,
    one: () => shoot(services[2].endpoint, docsUrl(), false),
  },
  "service, HTTP forceRefresh, MAX_CONCURRENT_CAPTURES=3": {
    concurrency: 3,
    one: () => shoot(services[3].endpoint, docsUrl()),
  },
};

/** Captures per second: workers start captures until the window closes; all are counted. */
async function throughput(variant: { concurrency: number; one: Worker }): Promise<number> {
  const until = performance.now() + SECONDS * 1000;
  const begun = performance.now();
  let done = 0;
  await Promise.all(Array.from({ length: variant.concurrency }, async (_, i) => {
    while (performance.now() < until) {
      await variant.one(i);
      done++;
    }
  }));
  return done / ((performance.now() - begun) / 1000);
}

// --- (a) the cost table ---------------------------------------------------------------------
const run = { browser, browserPid, store, log, url: docsUrl };
const isolated: PhaseTable = new Map();
const reused: PhaseTable = new Map();
for (let i = -2; i < PHASE_RUNS; i++) {
  // One at a time, with a pause, so each phase's CPU is its own.
  await isolatedPhases(i < 0 ? new Map() : isolated, run);
  await sleep(300);
  await reusedPhases(i < 0 ? new Map() : reused, run, reusedPages[0]);
  await sleep(300);
}

// --- (b) throughput, interleaved -------------------------------------------------------------
const names = Object.keys(variants);
const rates = new Map(names.map((n) => [n, [] as number[]]));
for (const name of names) await variants[name].one(0); // warm each path once
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length];
    await sleep(500);
    rates.get(name)!.push(await throughput(variants[name]));
  }
}

// --- (c) warm latency vs the floor -----------------------------------------------------------
const floorPage = await ownWindowPage();
const floor = await openCdpFloor(floorPage);
const latency = { floor: [] as number[], service: [] as number[] };
for (let i = -2; i < 12; i++) {
  for (const side of ["floor", "service"] as const) {
    await sleep(600);
    const t0 = performance.now();
    if (side === "floor") await floor.capture(docsUrl());
    else await shoot(services[2].endpoint, docsUrl());
    if (i >= 0) latency[side].push(performance.now() - t0);
  }
}
await floor.close();

// --- (d) memory over TOTAL service captures --------------------------------------------------
function memory() {
  const tree = [browserPid, ...descendantsOf(browserPid)];
  const sum = (file: string, ...fields: string[]) =>
    tree.reduce((total, p) => total + procBytes(p, file, ...fields), 0);
  return {
    deno: Deno.memoryUsage().rss / MB,
    chromiumRss: sum("status", "VmRSS") / MB,
    chromiumPrivate: sum("smaps_rollup", "Private_Clean", "Private_Dirty") / MB,
    processes: tree.length,
  };
}
let count = 0;
const memRows: string[] = [];
const memRow = (m: ReturnType<typeof memory>) =>
  `| ${count} | ${m.deno.toFixed(0)} | ${m.chromiumRss.toFixed(0)} | ${
    m.chromiumPrivate.toFixed(0)
  } | ${m.processes} |`;
for (
  const checkpoint of [10, 100, 200, TOTAL].filter((c, i, all) =>
    c <= TOTAL && all.indexOf(c) === i
  )
) {
  await Promise.all([0, 1].map(async () => {
    while (count < checkpoint) {
      count++;
      await shoot(services[2].endpoint, docsUrl());
    }
  }));
  await sleep(1500);
  memRows.push(memRow(memory()));
}

// --- report ----------------------------------------------------------------------------------
const reference = median(rates.get(names[0])!);
const rateRows = names.map((name) => {
  const r = rates.get(name)!;
  return `| ${name} | ${variants[name].concurrency} | ${median(r).toFixed(2)} | ${
    r.map((x) => x.toFixed(2)).join(" / ")
  } | ${(median(r) / reference).toFixed(2)} |`;
});
const fl = median(latency.floor);
console.log(
  `### Cost of one capture of the Rust std index, phase by phase (${PHASE_RUNS} runs, one at a time)

${phaseRows(isolated, reused)}

### Throughput, Rust std index, distinct URLs, ${SECONDS} s per figure, ${ROUNDS} interleaved rounds

| variant | concurrency | captures/s (median) | per round | ratio to reference |
|---|---:|---:|---:|---:|
${rateRows.join("\n")}

### Warm single capture (interleaved, 12 each)

| path | median ms | vs floor |
|---|---:|---:|
| bare CDP floor (navigate, load, captureScreenshot; reused page) | ${fl.toFixed(0)} | 1.00x |
| service, HTTP forceRefresh | ${median(latency.service).toFixed(0)} | ${
    (median(latency.service) / fl).toFixed(2)
  }x |

### Memory over service captures (Rust std index, concurrency 2)

| captures | Deno RSS MB | Chromium RSS MB | Chromium private MB | Chromium processes |
|---:|---:|---:|---:|---:|
${memRows.join("\n")}

Load average ${loadStart} at start, ${loadAverage()} at end; ${navigator.hardwareConcurrency} cores; ${await browser
    .version()}; ${((performance.now() - started) / 60_000).toFixed(1)} min.`,
);

for (const page of [...reusedPages, ...wipedPages, floorPage]) {
  await page.browserContext().close();
}
for (const s of Object.values(services)) {
  await s.server.shutdown();
  await s.t.close();
}
await capturer.close();
await store.close();
await docs.shutdown();
await Deno.remove(kvDir, { recursive: true });
