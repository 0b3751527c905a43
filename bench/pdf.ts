/**
 * PDF output, side by side, one run, printed as Markdown: four loopback pages at 1280x800 (a
 * docs-like long article, a short landing page, a table-heavy page, a page of photos) printed
 * (a) by the service's producer (page/print_pdf.ts) on a fresh page, goto then print, on A4 and
 *     as one page;
 * (b) by a bare Page.printToPDF over a CDP session on the same fresh page, A4 with backgrounds;
 * (b') by puppeteer's page.pdf on A4 with tagged: false, for what the tagged PDF's structure
 *     tree costs (Chromium tags by default, and so does the producer);
 * (c) by capture-website's own PDF output (`type: "pdf"`, A4, backgrounds, a reused browser; it
 *     waits for network idle, puppeteer's networkidle2, before printing, as it documents).
 * Each cell: median time (ms, new page to bytes) over the rounds, size, pages, and the words
 * pdftotext extracts as a share of the words of the page's innerText.
 *
 *   deno run -A bench/pdf.ts [--rounds=5]
 */
import captureWebsite from "capture-website";
import type { Page } from "puppeteer-core";
import sharp from "sharp";
import { Buffer } from "node:buffer";
import { printPdf } from "../lib/capture/page/print_pdf.ts";
import { readPdfInfo } from "../lib/codecs/pdf_info.ts";
import { pdfText } from "../testing/poppler.ts";
import { loadAverage, median } from "./support/measure.ts";
import { CHROMIUM, FLAGS, launchBenchChromium } from "./peers/capture.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 5);
const VIEWPORT = { width: 1280, height: 800 };
// A4 in inches, as Chromium's printToPDF takes it.
const A4_INCHES = { paperWidth: 8.27, paperHeight: 11.69 };
const PHOTOS = 12;

const words = (text: string) => text.split(/\s+/).filter((w) => w.length > 0).length;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body { font: 16px/1.6 sans-serif; margin: 0 auto; max-width: 960px; padding: 24px;
color: #222 } pre { background: #f4f4f4; padding: 12px } table { border-collapse: collapse }
td, th { border: 1px solid #ccc; padding: 4px 8px } .hero { background: #234; color: #fff;
padding: 80px 24px } .grid { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8px }
.grid img { width: 100%; height: auto }</style></head><body>${body}</body></html>`;
}

const PROSE = "A screenshot service renders real pages, so this paragraph carries ordinary " +
  "prose with <a href='https://example.com/ref'>a link</a>, <code>inline code</code>, " +
  "<strong>bold</strong> and <em>italic</em> runs, long enough to wrap across the column.";

const BODIES: Record<string, string> = {
  "/article": page(
    "Docs",
    `<h1>Capture options</h1>${
      Array.from({ length: 160 }, (_, i) =>
        (i % 16 === 0 ? `<h2 id="s${i}">Section ${i / 16 + 1}</h2>` : "") +
        `<p>${i}. ${PROSE}</p>` +
        (i % 10 === 5 ? `<pre>curl -X POST /api/screenshot -d '{"url": "${i}"}'</pre>` : ""))
        .join("")
    }`,
  ),
  "/landing": page(
    "Landing",
    `<section class="hero"><h1>Shotline</h1><p>Screenshots of any page, as an API.</p>
<a href="https://example.com/start">Start now</a></section><div class="grid">${
      ["Fast", "Private", "Simple"].map((f) => `<div><h3>${f}</h3><p>${PROSE}</p></div>`).join("")
    }</div><footer><p>Made on loopback.</p></footer>`,
  ),
  "/table": page(
    "Table",
    `<h1>Prices</h1><table><tr>${
      ["Id", "Name", "Region", "Plan", "Price", "Updated"].map((h) => `<th>${h}</th>`).join("")
    }</tr>${
      Array.from({ length: 400 }, (_, i) =>
        `<tr><td>${i}</td><td>Customer ${i}</td><td>${["EU", "US", "APAC"][i % 3]}</td>` +
        `<td>${["Free", "Pro", "Team"][i % 3]}</td><td>${(i * 7.3).toFixed(2)}</td>` +
        `<td>2026-11-${String(1 + i % 28).padStart(2, "0")}</td></tr>`).join("")
    }</table>`,
  ),
  "/images": page(
    "Gallery",
    `<h1>Gallery</h1><div class="grid">${
      Array.from({ length: PHOTOS }, (_, i) =>
        `<figure><img src="/photo/${i}.jpg" width="640" height="400"><figcaption>Photo ${i}` +
        `</figcaption></figure>`).join("")
    }</div>`,
  ),
};

const photos = await Promise.all(Array.from({ length: PHOTOS }, (_, i) =>
  sharp({
    create: {
      width: 640,
      height: 400,
      channels: 3,
      background: { r: 20 * i, g: 120, b: 200 - 10 * i },
      noise: { type: "gaussian", mean: 128, sigma: 40 },
    },
  }).jpeg({ quality: 80 }).toBuffer()));

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
  const { pathname } = new URL(request.url);
  const photo = /^\/photo\/(\d+)\.jpg$/.exec(pathname);
  if (photo) {
    return new Response(photos[Number(photo[1])], { headers: { "content-type": "image/jpeg" } });
  }
  const body = BODIES[pathname];
  return body
    ? new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } })
    : new Response("not found", { status: 404 });
});
const origin = `http://127.0.0.1:${server.addr.port}`;

const browser = await launchBenchChromium();

/** A fresh page at the bench's viewport, loaded; `work` gets it and it is closed after. */
async function onFreshPage(url: string, work: (page: Page) => Promise<Uint8Array>) {
  const page = await browser.newPage();
  try {
    await page.setViewport(VIEWPORT);
    await page.goto(url, { waitUntil: "load" });
    return await work(page);
  } finally {
    await page.close();
  }
}

type Tool = (url: string) => Promise<Uint8Array>;
const TOOLS: Record<string, Tool> = {
  "ours, A4": (url) =>
    onFreshPage(
      url,
      async (page) => (await printPdf(page, { pdf: {}, media: "screen", timeoutMs: 60_000 })).bytes,
    ),
  "ours, onePage": (url) =>
    onFreshPage(
      url,
      async (page) =>
        (await printPdf(page, { pdf: { onePage: true }, media: "screen", timeoutMs: 60_000 }))
          .bytes,
    ),
  "CDP printToPDF, A4": (url) =>
    onFreshPage(url, async (page) => {
      const client = await page.createCDPSession();
      const { data } = await client.send("Page.printToPDF", {
        ...A4_INCHES,
        printBackground: true,
        marginTop: 0,
        marginBottom: 0,
        marginLeft: 0,
        marginRight: 0,
      });
      return new Uint8Array(Buffer.from(data, "base64"));
    }),
  // What leaving out the structure tree (the tagged PDF's accessibility tags) saves.
  "page.pdf A4, untagged": (url) =>
    onFreshPage(
      url,
      async (page) =>
        new Uint8Array(await page.pdf({ format: "A4", printBackground: true, tagged: false })),
    ),
  "capture-website, A4": async (url) =>
    new Uint8Array(
      await captureWebsite.buffer(
        url,
        {
          ...VIEWPORT,
          scaleFactor: 1,
          type: "pdf",
          pdf: { format: "a4", background: true },
          // Its ad blocker downloads filter lists from the internet first; there is none here.
          blockAds: false,
          launchOptions: { executablePath: CHROMIUM, args: FLAGS, headless: true },
          _browser: browser as unknown as never,
          _keepAlive: true,
        } as Parameters<typeof captureWebsite.buffer>[1],
      ),
    ),
};

/** The words of each page's innerText, as a reader would select them. */
async function pageWords(path: string): Promise<number> {
  const page = await browser.newPage();
  try {
    await page.setViewport(VIEWPORT);
    await page.goto(origin + path, { waitUntil: "load" });
    return words(await page.evaluate("document.body.innerText") as string);
  } finally {
    await page.close();
  }
}

const date = new Date().toISOString();
const loadBefore = loadAverage();
const results: Record<string, Record<string, { ms: number[]; pdf: Uint8Array }>> = {};
for (let round = 0; round < ROUNDS + 1; round++) {
  for (const path of Object.keys(BODIES)) {
    for (const [tool, run] of Object.entries(TOOLS)) {
      const started = performance.now();
      const pdf = await run(origin + path);
      const ms = performance.now() - started;
      if (round === 0) continue; // the warm-up round
      const cell = (results[path] ??= {})[tool] ??= { ms: [], pdf };
      cell.ms.push(ms);
    }
  }
}

const tools = Object.keys(TOOLS);
const lines = [
  `PDF output, ${ROUNDS} rounds (medians), ${date}, load ${loadBefore} before, ` +
  `${loadAverage()} after. Cell: ms · KB · pages · words extracted / innerText words.`,
  "",
  `| page (innerText words) | ${tools.join(" | ")} |`,
  `|---|${tools.map(() => "---").join("|")}|`,
];
for (const path of Object.keys(BODIES)) {
  const expected = await pageWords(path);
  const cells = [];
  for (const tool of tools) {
    const { ms, pdf } = results[path][tool];
    const extracted = words(await pdfText(pdf));
    cells.push(
      `${median(ms).toFixed(0)} · ${(pdf.length / 1024).toFixed(0)} · ` +
        `${readPdfInfo(pdf).pages} · ${(100 * extracted / expected).toFixed(1)}%`,
    );
  }
  lines.push(`| ${path} (${expected}) | ${cells.join(" | ")} |`);
}
console.log(lines.join("\n"));

await browser.close();
await server.shutdown();
