/**
 * Which ingredient of the settle does what: the settle corpus captured with puppeteer-core
 * directly (a fresh context per capture, load plus a short network quiet), each variant adding
 * or leaving out one ingredient of lib/capture/page/settle.ts. Prints regions right and median
 * time per variant, viewport and full page, as a Markdown table.
 *
 *   deno run -A bench/settle_ablation.ts [--runs 1]
 */
import puppeteer, { type CDPSession, type Page } from "puppeteer-core";
import {
  FINISH_ANIMATIONS_SCRIPT,
  NUDGE_EVENTS_SCRIPT,
  PUMP_SCRIPT,
  SETTLE_INIT_SCRIPT,
  STOP_PUMP_SCRIPT,
} from "../lib/capture/page/settle_scripts.ts";
import { CORPUS, regionsFor, VIEWPORT } from "../testing/settle/corpus.ts";
import { judgeRegions } from "../testing/settle/regions.ts";
import { serveCorpus } from "../testing/settle/server.ts";
import { decodePng } from "../testing/capture_fixtures.ts";
import { CHROMIUM, FLAGS } from "./peers/capture.ts";
import { loadAverage, median } from "./support/measure.ts";

// The grown viewport's old wait for the page to draw: two animation frames (the settle itself now
// waits for the page's observers instead).
const TWO_FRAMES_SCRIPT = `() => new Promise((resolve) =>
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))`;

interface Variant {
  name: string;
  reducedMotion?: boolean;
  virtualTime?: boolean;
  pump?: boolean;
  finish?: boolean;
  grow?: boolean;
  /** A fixed wait instead, in ms (what capture-website-like tools do). */
  delayMs?: number;
}

const VARIANTS: Variant[] = [
  { name: "none (first frame)" },
  { name: "fixed 1.5 s delay", delayMs: 1_500 },
  { name: "prefers-reduced-motion", reducedMotion: true },
  { name: "finish() only", finish: true },
  { name: "virtual time only", virtualTime: true },
  { name: "virtual time + frame pump", virtualTime: true, pump: true },
  { name: "virtual time + finish()", virtualTime: true, finish: true },
  { name: "all but growth", virtualTime: true, pump: true, finish: true },
  { name: "growth only", grow: true },
  { name: "all (the service's settle)", virtualTime: true, pump: true, finish: true, grow: true },
];

const args = Deno.args;
const RUNS = Number(args[args.indexOf("--runs") + 1]) || 1;
const run = (page: Page, script: string) => page.evaluate(`(${script})()`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function advance(page: Page, cdp: CDPSession, budget: number, pump: boolean) {
  const expired = new Promise((resolve) => cdp.once("Emulation.virtualTimeBudgetExpired", resolve));
  if (pump) await run(page, PUMP_SCRIPT);
  await cdp.send("Emulation.setVirtualTimePolicy", { policy: "advance", budget });
  await Promise.race([expired, sleep(2_500)]);
  if (pump) await run(page, STOP_PUMP_SCRIPT);
}

async function capture(page: Page, url: string, variant: Variant, fullPage: boolean) {
  if (variant.reducedMotion) {
    await page.emulateMediaFeatures([{ name: "prefers-reduced-motion", value: "reduce" }]);
  }
  await page.evaluateOnNewDocument(SETTLE_INIT_SCRIPT);
  await page.goto(url, { waitUntil: "load" });
  await page.waitForNetworkIdle({ idleTime: 100, timeout: 3_000 }).catch(() => {});
  if (variant.delayMs) await sleep(variant.delayMs);
  let height: number | null = null;
  if (fullPage && variant.grow) {
    // Growing the viewport to the document: the full page before it visited scroll positions
    // (kept here to compare with; it stretches viewport-sized backgrounds).
    height = await page.evaluate("document.documentElement.scrollHeight") as number;
    await page.setViewport({ ...VIEWPORT, height: height + VIEWPORT.height });
    await run(page, NUDGE_EVENTS_SCRIPT);
    await run(page, TWO_FRAMES_SCRIPT);
  }
  const cdp = variant.virtualTime ? await page.createCDPSession() : null;
  if (cdp) await advance(page, cdp, 5_000, variant.pump === true);
  await page.waitForNetworkIdle({ idleTime: 100, timeout: 1_500 }).catch(() => {});
  if (cdp) await advance(page, cdp, 1_000, variant.pump === true);
  if (variant.finish) await run(page, FINISH_ANIMATIONS_SCRIPT);
  const documentHeight = height ??
    await page.evaluate("document.documentElement.scrollHeight") as number;
  const clip = fullPage ? { x: 0, y: 0, width: VIEWPORT.width, height: documentHeight } : null;
  return await page.screenshot({
    type: "png",
    optimizeForSpeed: true,
    ...(clip ? { clip, captureBeyondViewport: true } : {}),
  });
}

if (import.meta.main) {
  await using server = serveCorpus();
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    args: FLAGS,
    pipe: true,
    defaultViewport: null,
  });
  const rows: string[] = [];
  try {
    for (const variant of VARIANTS) {
      const cells = [];
      for (const fullPage of [false, true]) {
        let right = 0;
        let total = 0;
        const ms: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          for (const corpusPage of CORPUS) {
            const context = await browser.createBrowserContext();
            const page = await context.newPage();
            await page.setViewport(VIEWPORT);
            const started = performance.now();
            const png = await capture(page, server.origin + corpusPage.path, variant, fullPage);
            ms.push(performance.now() - started);
            const regions = regionsFor(corpusPage, fullPage ? "fullPage" : "viewport");
            const results = judgeRegions(decodePng(new Uint8Array(png)), regions);
            right += results.filter((r) => r.ok).length;
            total += regions.length;
            await context.close();
          }
        }
        cells.push(`${right}/${total}, ${Math.round(median(ms))} ms`);
      }
      rows.push(`| ${variant.name} | ${cells.join(" | ")} |`);
    }
  } finally {
    await browser.close();
  }
  console.log(
    `\nSettle ingredients on the corpus, ${RUNS} run(s), median ms per capture ` +
      `(load + network idle included); load average ${loadAverage()}\n`,
  );
  console.log("| variant | viewport | full page |\n|---|---|---|");
  for (const row of rows) console.log(row);
}
