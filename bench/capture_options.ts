/**
 * Capture options, one run, side by side, printed as Markdown (bench/README.md):
 * (a) `fullPage` on long pages: the service (the real main.ts, warm, forceRefresh over HTTP)
 *     vs capture-website `fullPage: true` (reused browser, and a launch per call as documented)
 *     vs the bare-CDP floor (Page.navigate, load, Page.getLayoutMetrics, one
 *     Page.captureScreenshot of the whole content), every tool on /usr/bin/chromium;
 * (b) `scale: 2` vs `scale: 1` on the same page: time and PNG size ratios;
 * (c) RSS of the service and of its Chromium across 50 full-page captures at the height cap.
 *
 *   deno run -A bench/capture_options.ts [--rounds=5] [--total=50]
 *
 * The long pages are the service's own /docs reference (the biggest page it serves) and the
 * 300-paragraph article of the peers benchmark.
 */
import captureWebsite from "capture-website";
import puppeteer, { type Browser, type CDPSession } from "puppeteer-core";
import { maxCaptureHeight } from "../lib/capture/request/options.ts";
import { loadAverage, median } from "./support/measure.ts";
import { sampleMemory, startService } from "./load/service.ts";
import { CHROMIUM, FLAGS, servePages } from "./peers/capture.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 5);
const TOTAL = Number(option("total") ?? 50);
const VIEWPORT = { width: 1920, height: 1080 };

// A page far past the cap (about 60000 px of text), for the memory run.
const paragraphs = Array.from(
  { length: 900 },
  (_, i) =>
    `<p>Paragraph ${i}: long enough to wrap across the line and make the text engine shape and ` +
    "paint glyphs all the way down a page that is several times taller than the cap.</p>",
).join("");
const tall = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) =>
    new URL(request.url).pathname === "/list.txt"
      ? new Response("! bench list\n/ads/banner.\n##.ad-slot\n")
      : new Response(
        `<!doctype html><meta charset="utf-8"><body style="font:16px/1.6 sans-serif;margin:24px">` +
          paragraphs,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      ),
);
const tallOrigin = `http://127.0.0.1:${tall.addr.port}`;

const logDir = await Deno.makeTempDir({ prefix: "shotline-bench-options-" });
const service = await startService({
  ALLOW_PRIVATE_NETWORK: "true",
  RATE_LIMIT_PER_MINUTE: "100000",
  // A file, as in production: an in-memory KV would count the cached PNGs as service RSS.
  KV_PATH: `${logDir}/kv.sqlite3`,
  LOG_LEVEL: "warn",
  // Never the public lists from a bench: a loopback one.
  ADBLOCK_LIST_URLS: `${tallOrigin}/list.txt`,
}, logDir);
const site = await servePages();

/** One service capture; returns its PNG size in bytes and its height. */
async function viaService(url: string, options: Record<string, unknown>) {
  const res = await fetch(`${service.origin}/api/screenshot`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url, forceRefresh: true, ...options }),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`service: HTTP ${res.status} ${json.code} ${json.hint}`);
  return { bytes: json.screenshot.length * 3 / 4, height: json.height as number };
}

/** The floor: one reused page, cache off; navigate, load, one screenshot of all the content. */
async function openFloor(browser: Browser) {
  const page = await browser.newPage();
  await page.setViewport({ ...VIEWPORT, deviceScaleFactor: 1 });
  const cdp: CDPSession = await page.createCDPSession();
  await cdp.send("Page.enable");
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  return async (url: string) => {
    const loaded = new Promise((resolve) => cdp.once("Page.loadEventFired", resolve));
    await cdp.send("Page.navigate", { url });
    await loaded;
    const { cssContentSize } = await cdp.send("Page.getLayoutMetrics");
    const height = Math.min(Math.ceil(cssContentSize.height), maxCaptureHeight(VIEWPORT.width, 1));
    const { data } = await cdp.send("Page.captureScreenshot", {
      format: "png",
      optimizeForSpeed: true,
      captureBeyondViewport: true,
      clip: { x: 0, y: 0, width: VIEWPORT.width, height, scale: 1 },
    });
    return { bytes: data.length * 3 / 4, height };
  };
}

const websiteOptions = (browser?: Browser) => ({
  ...VIEWPORT,
  scaleFactor: 1,
  fullPage: true,
  type: "png" as const,
  blockAds: false, // its blocker downloads lists from the internet; none here
  launchOptions: { executablePath: CHROMIUM, args: FLAGS, headless: true },
  ...(browser ? { _browser: browser, _keepAlive: true } : {}),
});

type Tool = (url: string) => Promise<{ bytes: number; height: number }>;

async function time(work: () => Promise<{ bytes: number; height: number }>) {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, ...result };
}

/** Rounds of every tool on one URL (order rotating) after an untimed warm-up; medians. */
async function sideBySide(url: string, tools: Record<string, Tool>) {
  const runs: Record<string, { ms: number[]; bytes: number; height: number }> = {};
  for (const [name, run] of Object.entries(tools)) {
    const first = await run(url);
    runs[name] = { ms: [], bytes: first.bytes, height: first.height };
  }
  const names = Object.keys(tools);
  for (let round = 0; round < ROUNDS; round++) {
    // The order rotates: a tool that closes a browser leaves work behind for whoever runs next.
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    for (const name of order) {
      const { ms, bytes, height } = await time(() => tools[name](url));
      Object.assign(runs[name], { bytes, height });
      runs[name].ms.push(ms);
    }
  }
  return Object.fromEntries(
    Object.entries(runs).map(([name, r]) => [name, { ...r, median: median(r.ms) }]),
  );
}

const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
const floor = await openFloor(browser);
const kb = (bytes: number) => (bytes / 1024).toFixed(0);
try {
  console.log(`Load average at start: ${loadAverage()}\n`);
  console.log(
    `(a) fullPage, 1920 px wide PNG, medians of ${ROUNDS} rounds (tool order rotating)\n\n` +
      "| page (height) | service ms | CDP floor ms | capture-website reused ms | " +
      "capture-website ms | service / floor | capture-website / service | " +
      "capture-website reused / service | PNG KB service / floor / capture-website |\n" +
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  const pages = [
    ["service /docs", `${service.origin}/docs`],
    ["article, 300 paragraphs", `${site.origin}/text`],
  ];
  for (const [name, url] of pages) {
    const r = await sideBySide(url, {
      service: (u) => viaService(u, { fullPage: true }),
      floor,
      cwReused: async (u) => ({
        bytes: (await captureWebsite.buffer(u, websiteOptions(browser))).length,
        height: 0,
      }),
      cw: async (u) => ({
        bytes: (await captureWebsite.buffer(u, websiteOptions())).length,
        height: 0,
      }),
    });
    const m = (tool: string) => r[tool].median;
    console.log(
      `| ${name} (${r.service.height} px) | ${m("service").toFixed(0)} | ${
        m("floor").toFixed(0)
      } | ` +
        `${m("cwReused").toFixed(0)} | ${m("cw").toFixed(0)} | ` +
        `${(m("service") / m("floor")).toFixed(2)}x | ${(m("cw") / m("service")).toFixed(2)}x | ` +
        `${(m("cwReused") / m("service")).toFixed(2)}x | ` +
        `${kb(r.service.bytes)} / ${kb(r.floor.bytes)} / ${kb(r.cw.bytes)} |`,
    );
  }

  console.log(
    `\n(b) scale 2 vs scale 1, viewport capture through the service, medians of ${ROUNDS}\n\n` +
      "| page | scale 1 ms | scale 2 ms | time ratio | PNG KB 1x / 2x | size ratio |\n" +
      "|---|---:|---:|---:|---:|---:|",
  );
  for (const [name, url] of [["service /docs", `${service.origin}/docs`], ...pages.slice(1)]) {
    const r = await sideBySide(url, {
      one: (u) => viaService(u, { scale: 1 }),
      two: (u) => viaService(u, { scale: 2 }),
    });
    console.log(
      `| ${name} | ${r.one.median.toFixed(0)} | ${r.two.median.toFixed(0)} | ` +
        `${(r.two.median / r.one.median).toFixed(2)}x | ${kb(r.one.bytes)} / ${
          kb(r.two.bytes)
        } | ` +
        `${(r.two.bytes / r.one.bytes).toFixed(2)}x |`,
    );
  }

  const early = 5;
  let first = sampleMemory(service.pid);
  let last = first;
  const times: number[] = [];
  let height = 0;
  for (let i = 1; i <= TOTAL; i++) {
    const r = await time(() => viaService(`${tallOrigin}/?n=${i}`, { fullPage: true }));
    times.push(r.ms);
    height = r.height;
    if (i === early) first = sampleMemory(service.pid);
    last = sampleMemory(service.pid);
  }
  const mb = (v: number) => v.toFixed(0);
  console.log(
    `\n(c) ${TOTAL} full-page captures of a page cut at the cap (1920x${height}), ` +
      `median ${median(times).toFixed(0)} ms each\n\n` +
      `| process | after ${early} | after ${TOTAL} | growth |\n|---|---:|---:|---:|\n` +
      `| service (Deno) RSS MB | ${mb(first.denoMb)} | ${mb(last.denoMb)} | ` +
      `${mb(last.denoMb - first.denoMb)} |\n` +
      `| Chromium RSS MB (${last.chromiumProcesses} processes) | ${mb(first.chromiumRssMb)} | ` +
      `${mb(last.chromiumRssMb)} | ${mb(last.chromiumRssMb - first.chromiumRssMb)} |\n` +
      `| Chromium PSS MB | ${mb(first.chromiumPssMb)} | ${mb(last.chromiumPssMb)} | ` +
      `${mb(last.chromiumPssMb - first.chromiumPssMb)} |`,
  );
  console.log(`\nLoad average at end: ${loadAverage()}`);
} finally {
  await browser.close();
  await service.stop();
  await site.close();
  await tall.shutdown();
  await Deno.remove(logDir, { recursive: true });
}
