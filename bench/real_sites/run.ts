/**
 * `deno task bench:sites`: the real-site corpus (`sites.ts`), each page judged the way a person
 * scrolling it would judge a full-page capture (`person.ts` shoots what the person sees,
 * `compare.ts` scores a capture against it), for the service's full page, the service's viewport
 * (first screen only) and capture-website's full page, with times and sizes.
 * Loopback only: the corpus is installed from npm, served by `serve.ts`, and the service is the
 * real main.ts on a free port.
 *
 *   deno task bench:sites [--only=creative,landing] [--runs=3] [--tools=full,viewport,cw]
 *     [--backend=local|remote]
 *
 * The worst screen of each capture's worst run is written beside its band to
 * bench/.corpus/out/<site>-<tool>.png for a look, and each failing screen to ...-screen<k>.png.
 * Every site also scores two captures stitched from the reference's own shots, as it is and
 * shifted 100 px down: the first must score about 100%, the second must fail.
 */
import { Buffer } from "node:buffer";
import captureWebsite from "capture-website";
import puppeteer from "puppeteer-core";
import { startService } from "../load/service.ts";
import { CHROMIUM, FLAGS } from "../peers/capture.ts";
import { loadAverage, median } from "../support/measure.ts";
import { CORPUS_DIR, installCorpus } from "./install.ts";
import {
  decode,
  type Image,
  PASS_SCORE,
  type Reference,
  scoreCapture,
  stitch,
  VIEWPORT,
  writeSideBySide,
} from "./compare.ts";
import { shootReference } from "./person.ts";
import { serveCorpus } from "./serve.ts";
import { SITES } from "./sites.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ONLY = option("only")?.split(",");
const RUNS = Number(option("runs") ?? 3);
const TOOLS = (option("tools") ?? "full,viewport,cw").split(",");
// "remote": the service renders on a second Chromium over BROWSER_WS_ENDPOINT, no local browser.
const BACKEND = option("backend") ?? "local";
const OUT_DIR = `${CORPUS_DIR}out/`;
// Every browser here resolves only loopback names: a page's stray request to another host fails
// at once instead of leaving the machine.
const OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1";

interface Judged {
  /** Lowest screen score, 0..1. */
  worst: number;
  missingBlocks: number;
  bytes: number;
  size: string;
  truncated?: boolean;
  /** Every screen's score, in percent, top to bottom. */
  perScreen: string;
  /** Writes the worst screen beside its band (`<prefix>.png`), and each failing one. */
  write(prefix: string): Promise<void>;
}

async function judge(reference: Reference, png: Uint8Array, firstOnly: boolean): Promise<Judged> {
  const capture = await decode(png);
  const ref = firstOnly ? { ...reference, screens: reference.screens.slice(0, 1) } : reference;
  const scores = scoreCapture(ref, capture);
  const worst = scores.reduce((w, s, i) => (s.score < scores[w].score ? i : w), 0);
  return {
    worst: scores[worst].score,
    missingBlocks: scores.reduce((sum, s) => sum + s.missingBlocks, 0),
    bytes: png.length,
    size: `${capture.width}x${capture.height}`,
    perScreen: scores.map((s) =>
      `${(s.score * 100).toFixed(1)}${s.missingBlocks ? ` (${s.missingBlocks} blocks)` : ""}`
    ).join(", "),
    write: async (prefix) => {
      await writeSideBySide(`${prefix}.png`, ref.screens[worst], scores[worst], capture);
      for (const [k, score] of scores.entries()) {
        if (score.score >= PASS_SCORE && score.missingBlocks === 0) continue;
        await writeSideBySide(`${prefix}-screen${k}.png`, ref.screens[k], score, capture);
      }
    },
  };
}

const passes = (j: Judged) => j.worst >= PASS_SCORE && j.missingBlocks === 0;

function selfCheck(reference: Reference): { same: number; shifted: number } {
  const worst = (capture: Image) =>
    Math.min(...scoreCapture(reference, capture).map((s) => s.score));
  return { same: worst(stitch(reference)), shifted: worst(stitch(reference, 100)) };
}

async function main() {
  await installCorpus();
  await Deno.mkdir(OUT_DIR, { recursive: true });
  const corpus = serveCorpus();
  const logDir = await Deno.makeTempDir({ prefix: "shotline-sites-" });
  // The remote backend's browser: a Chromium of its own, reached over its DevTools WebSocket.
  const fleet = BACKEND === "remote"
    ? await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [...FLAGS, OFFLINE],
    })
    : null;
  const service = await startService({
    KV_PATH: ":memory:",
    TRUST_PROXY_HOPS: "1",
    ALLOW_PRIVATE_NETWORK: "true",
    ...(fleet
      ? { BROWSER_WS_ENDPOINT: fleet.wsEndpoint(), CHROME_PATH: `${logDir}/no-local-browser` }
      : {}),
  }, logDir);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...FLAGS, OFFLINE],
  });
  let ip = 0;
  const viaService = async (url: string, fullPage: boolean) => {
    const res = await fetch(`${service.origin}/api/screenshot`, {
      method: "POST",
      // A client IP per request, so the rate limit does not pace the benchmark.
      headers: { "content-type": "application/json", "x-forwarded-for": `198.18.7.${++ip % 250}` },
      body: JSON.stringify({ url, fullPage, forceRefresh: true }),
    });
    const json = await res.json();
    if (res.status !== 200) throw new Error(`service: HTTP ${res.status} ${JSON.stringify(json)}`);
    const expected = BACKEND === "remote" ? "chromium-remote" : "chromium-local";
    if (json.strategy !== expected) {
      throw new Error(`rendered by ${json.strategy}, not ${expected}`);
    }
    return {
      png: new Uint8Array(Buffer.from(json.screenshot, "base64")),
      truncated: json.truncated,
      icon: iconCell(json.page, corpus.origin),
    };
  };
  const viaCaptureWebsite = async (url: string) => ({
    png: new Uint8Array(
      await captureWebsite.buffer(url, {
        ...VIEWPORT,
        fullPage: true,
        scaleFactor: 1, // its default is 2; the service captures at 1x
        type: "png",
        blockAds: false, // its ad blocker downloads filter lists first; there is no internet
        launchOptions: { executablePath: CHROMIUM, args: [...FLAGS, OFFLINE], headless: true },
      }),
    ),
    truncated: false,
  });
  const tools = {
    "full": (url: string) => viaService(url, true),
    "viewport": (url: string) => viaService(url, false),
    "cw": viaCaptureWebsite,
  };
  const rows: string[] = [];
  const started = new Date().toISOString();
  const loadAtStart = loadAverage();
  try {
    for (const site of SITES.filter((s) => !ONLY || ONLY.includes(s.name))) {
      const url = corpus.origin + site.path;
      console.error(`${site.name}: reference screens`);
      const reference = await shootReference(browser, url);
      const check = selfCheck(reference);
      console.error(
        `${site.name}: screens at ${reference.screens.map((s) => s.offset).join(", ")} ` +
          `(${reference.wheelMissed} not reached by the wheel)`,
      );
      // Every run is judged: the table shows the worst run, and how many of the runs pass.
      const judged: Record<string, { worst: Judged; passed: number; ms: number[] } | string> = {};
      // The page's icon as the service's answer carries it (page.favicon, page.faviconData).
      let icon = "not captured";
      for (const [tool, run] of Object.entries(tools)) {
        if (!TOOLS.includes(tool)) {
          judged[tool] = "not run";
          continue;
        }
        console.error(`${site.name}: ${tool} x${RUNS}`);
        try {
          const ms: number[] = [];
          let worst: Judged | undefined, passed = 0;
          for (let i = 0; i < RUNS; i++) {
            const t0 = performance.now();
            const captured = await run(url);
            const { png, truncated } = captured;
            ms.push(performance.now() - t0);
            if ("icon" in captured) icon = captured.icon;
            const result = { ...await judge(reference, png, tool === "viewport"), truncated };
            if (passes(result)) passed++;
            if (!worst || result.worst < worst.worst) worst = result;
          }
          await worst!.write(`${OUT_DIR}${site.name}-${tool}`);
          console.error(`${site.name}: ${tool} worst run, screen by screen: ${worst!.perScreen}`);
          judged[tool] = { worst: worst!, passed, ms };
        } catch (error) {
          judged[tool] = error instanceof Error ? error.message.slice(0, 80) : String(error);
        }
      }
      const cell = (tool: string, withBlocks: boolean) => {
        const j = judged[tool];
        if (typeof j === "string") {
          const text = j === "not run" ? j : `failed: ${j}`;
          return withBlocks ? `${text} | | ` : `${text} | `;
        }
        const { worst } = j;
        const score = `${(worst.worst * 100).toFixed(1)}% (${j.passed}/${RUNS} pass)${
          worst.truncated ? " truncated" : ""
        }`;
        const time = `${(median(j.ms) / 1000).toFixed(1)} s, ${worst.size}, ${
          (worst.bytes / 1024).toFixed(0)
        } KB`;
        return withBlocks ? `${score} | ${worst.missingBlocks} | ${time}` : `${score} | ${time}`;
      };
      const row = `| ${site.name} | ${reference.screens.length} (${reference.scroller}) | ` +
        `${cell("full", true)} | ${cell("viewport", false)} | ${cell("cw", true)} | ` +
        `${(check.same * 100).toFixed(1)}% / ${(check.shifted * 100).toFixed(1)}% | ${icon} |`;
      console.error(row);
      rows.push(row);
    }
  } finally {
    await browser.close();
    await service.stop();
    await fleet?.close();
    await corpus.close();
  }
  console.log([
    `Run ${started}, ${RUNS} runs per capture (times are medians), ${navigator.hardwareConcurrency} cores, load average at start ${loadAtStart}, at end ${loadAverage()}.`,
    "",
    "| site | screens (scroller) | service full page: worst screen of the worst run | " +
    "missing blocks | time, size | service viewport: first screen | time, size | " +
    "capture-website full page: worst screen | missing blocks | time, size | " +
    "self-check: identical / shifted 100 px | page icon (favicon → faviconData) |",
    "|---|---|---:|---:|---|---:|---|---:|---:|---|---|---|",
    ...rows,
    "",
    `CDN requests no installed package answered: ${[...corpus.missed].join(", ") || "none"}.`,
  ].join("\n"));
}

/** "path → type, size" for the icon an answer carries, or "path → null". */
function iconCell(
  page: { favicon: string | null; faviconData: string | null } | undefined,
  origin: string,
): string {
  if (!page?.favicon) return "none declared";
  const where = page.favicon.startsWith(origin) ? page.favicon.slice(origin.length) : page.favicon;
  if (!page.faviconData) return `${where} → null`;
  const [head, base64] = page.faviconData.split(",");
  const type = head.slice("data:".length).replace(";base64", "");
  return `${where} → ${type}, ${(Buffer.from(base64, "base64").length / 1024).toFixed(1)} KB`;
}

if (import.meta.main) await main();
