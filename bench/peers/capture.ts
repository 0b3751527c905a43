/**
 * Capture, side by side (part of `deno task bench:peers`): the same loopback pages captured at
 * 1920x1080 by this service (the real main.ts, warm, forceRefresh over HTTP), by
 * `capture-website` from npm as documented (a browser launch per call) and with a reused
 * browser (its `_browser` option), and by the bare CDP floor (Page.navigate, load event,
 * Page.captureScreenshot on one reused page). Every tool uses Debian's /usr/bin/chromium.
 */
import captureWebsite from "capture-website";
import puppeteer, { type Browser, type LaunchOptions } from "puppeteer-core";
import sharp from "sharp";
import type { Service } from "../load/service.ts";
import { openCdpFloor } from "../cdp_floor.ts";
import { median } from "../support/measure.ts";

export const CHROMIUM = "/usr/bin/chromium";
// The service's own launch flags (lib/capture/local/browser.ts) minus its egress proxy; puppeteer
// adds its defaults to both, so the browsers differ only by the proxy.
export const FLAGS = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--no-sandbox",
];
const VIEWPORT = { width: 1920, height: 1080 };
const PHOTOS = 24;

/**
 * A Chromium for a bench's side-by-side tools, launched like the service's (FLAGS) over a pipe;
 * the bench, not puppeteer, handles the signals.
 */
export async function launchBenchChromium(extra: LaunchOptions = {}): Promise<Browser> {
  return await puppeteer.launch({
    executablePath: CHROMIUM,
    args: FLAGS,
    pipe: true,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    ...extra,
  });
}

export interface PageServer {
  origin: string;
  pages: { name: string; path: string }[];
  close(): Promise<void>;
}

/** Serves the page list: simple, text-heavy, image-heavy (24 photo-like JPEGs). */
export async function servePages(): Promise<PageServer> {
  const photos = await Promise.all(Array.from({ length: 12 }, (_, i) =>
    sharp({
      create: {
        width: 640,
        height: 400,
        channels: 3,
        background: { r: 40 * (i % 6), g: 120, b: 200 - 15 * i },
        noise: { type: "gaussian", mean: 128, sigma: 40 },
      },
    }).jpeg({ quality: 80 }).toBuffer()));
  const paragraph = (i: number) =>
    `<p>Paragraph ${i}: a screenshot service renders real pages, so this one carries ` +
    "ordinary prose with <a href='#'>links</a>, <strong>bold</strong> and <em>italic</em> " +
    "runs, and enough words per line to make the text engine wrap, shape and paint glyphs " +
    "across the whole viewport like an article or documentation page would.</p>";
  const html = (title: string, body: string) =>
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>` +
    "<style>body{font:16px/1.5 sans-serif;margin:24px;color:#222}" +
    ".grid{display:grid;grid-template-columns:repeat(6,1fr);gap:8px}" +
    ".grid img{width:100%;height:auto}</style></head><body>" + body + "</body></html>";
  const bodies: Record<string, () => string> = {
    "/simple": () => html("Simple", "<h1>Hello</h1><p>A simple page.</p>"),
    "/text": () =>
      html(
        "Text",
        `<h1>A long article</h1>${
          Array.from(
            { length: 300 },
            (_, i) => (i % 20 === 0 ? `<h2>Section ${i / 20 + 1}</h2>` : "") + paragraph(i),
          ).join("")
        }`,
      ),
    // A fresh query per request: no tool gets the photos from a cache.
    "/images": () => {
      const run = crypto.randomUUID();
      return html(
        "Images",
        `<h1>Gallery</h1><div class="grid">${
          Array.from({ length: PHOTOS }, (_, i) =>
            `<img src="/photo/${i % photos.length}.jpg?r=${run}-${i}" width="640" height="400">`)
            .join("")
        }</div>`,
      );
    },
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const { pathname } = new URL(req.url);
    const photo = /^\/photo\/(\d+)\.jpg$/.exec(pathname);
    if (photo) {
      return new Response(photos[Number(photo[1])], { headers: { "content-type": "image/jpeg" } });
    }
    const body = bodies[pathname];
    if (!body) return new Response("not found", { status: 404 });
    return new Response(body(), { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    pages: [
      { name: "simple", path: "/simple" },
      { name: "text-heavy (300 paragraphs)", path: "/text" },
      { name: `image-heavy (${PHOTOS} JPEGs)`, path: "/images" },
    ],
    close: () => server.shutdown(),
  };
}

/** The CDP floor in a browser of its own, launched like the others, with the HTTP cache off. */
async function openFloor() {
  const browser = await launchBenchChromium({
    headless: true,
    defaultViewport: { ...VIEWPORT, deviceScaleFactor: 1 },
  });
  const floor = await openCdpFloor(await browser.newPage(), { cacheDisabled: true });
  return { capture: floor.capture, close: () => browser.close() };
}

const websiteOptions = (browser?: Browser) => ({
  ...VIEWPORT,
  scaleFactor: 1, // its default is 2 (a 3840x2160 PNG); the service captures at 1x
  type: "png" as const,
  // Its ad blocker downloads filter lists from the internet first; there is none here.
  blockAds: false,
  launchOptions: { executablePath: CHROMIUM, args: FLAGS, headless: true },
  ...(browser ? { _browser: browser, _keepAlive: true } : {}),
});

interface Timed {
  ms: number[];
  bytes: number;
}

async function timed(times: Timed, work: () => Promise<number>) {
  const started = performance.now();
  times.bytes = await work();
  times.ms.push(performance.now() - started);
}

/** Runs every tool on every page (interleaved per round) and returns the Markdown table. */
export async function captureSideBySide(service: Service, rounds: number): Promise<string> {
  const site = await servePages();
  const floor = await openFloor();
  const reused = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  let ip = 0;
  const viaService = async (url: string) => {
    const res = await fetch(`${service.origin}/api/screenshot`, {
      method: "POST",
      // A client IP per request, so the 20/min limit does not pace the benchmark.
      headers: { "content-type": "application/json", "x-forwarded-for": `198.18.9.${++ip}` },
      body: JSON.stringify({ url, forceRefresh: true }),
    });
    const json = await res.json();
    if (res.status !== 200) throw new Error(`service capture: HTTP ${res.status} ${json.code}`);
    return json.screenshot.length * 3 / 4;
  };
  const tools: Record<string, (url: string) => Promise<number>> = {
    "service": viaService,
    "floor": (url) => floor.capture(url),
    "cw-reused": async (url) => (await captureWebsite.buffer(url, websiteOptions(reused))).length,
    "cw": async (url) => (await captureWebsite.buffer(url, websiteOptions())).length,
  };
  const rows: string[] = [];
  try {
    for (const page of site.pages) {
      const url = site.origin + page.path;
      const times = Object.fromEntries(
        Object.keys(tools).map((name) => [name, { ms: [], bytes: 0 } as Timed]),
      );
      // One warm-up round, not timed: JIT, fonts, the service's pool.
      for (const run of Object.values(tools)) await run(url);
      for (let round = 0; round < rounds; round++) {
        for (const [name, run] of Object.entries(tools)) await timed(times[name], () => run(url));
      }
      const m = (name: string) => median(times[name].ms);
      rows.push(
        `| ${page.name} | ${m("service").toFixed(0)} | ${m("floor").toFixed(0)} | ` +
          `${m("cw-reused").toFixed(0)} | ${m("cw").toFixed(0)} | ` +
          `${(m("cw") / m("service")).toFixed(2)}x | ${
            (m("cw-reused") / m("service")).toFixed(2)
          }x | ` +
          `${(m("service") / m("floor")).toFixed(2)}x | ` +
          `${(times.service.bytes / 1024).toFixed(0)} / ${(times.cw.bytes / 1024).toFixed(0)} |`,
      );
    }
  } finally {
    await floor.close();
    await reused.close();
    await site.close();
  }
  return [
    `Medians of ${rounds} interleaved rounds per page, 1920x1080 PNG, after one untimed round.`,
    "",
    "| page | service ms | CDP floor ms | capture-website, reused browser ms | " +
    "capture-website ms | capture-website / service | capture-website reused / service | " +
    "service / floor | PNG KB service / capture-website |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}
