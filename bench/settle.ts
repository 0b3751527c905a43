/**
 * Settled captures, side by side: every page of the settle corpus (testing/settle/)
 * captured by the service's local capturer (viewport and fullPage, settled by default; and
 * fullPage with `settle: false`, the first frame) and by `capture-website` from npm with its
 * defaults at scale 1, fullPage, a browser launch per call as documented. Prints per page the
 * regions right and the median time, as a Markdown table, with the load average.
 *
 *   deno run -A bench/settle.ts [--runs 3] [--no-peer]
 */
import captureWebsite from "capture-website";
import { createChromiumCapturer } from "../lib/capture/local/capturer.ts";
import type { CaptureOptions } from "../lib/capture/request/options.ts";
import { createLogger } from "../lib/log.ts";
import { CORPUS, type CorpusPage, regionsFor, VIEWPORT } from "../testing/settle/corpus.ts";
import { serveCorpus } from "../testing/settle/server.ts";
import { judgeRegions } from "../testing/settle/regions.ts";
import { decodePng } from "../testing/capture_fixtures.ts";
import { CHROMIUM, FLAGS } from "./peers/capture.ts";
import { loadAverage, median } from "./support/measure.ts";

interface Cell {
  right: number;
  total: number;
  ms: number[];
  missed: Set<string>;
}

const args = Deno.args;
const RUNS = Number(args[args.indexOf("--runs") + 1]) || 3;
const PEER = !args.includes("--no-peer");

type Mode = "viewport" | "fullPage" | "fullPage, settle: false" | "capture-website fullPage";

/** Times one capture and judges its regions. */
async function measure(
  corpusPage: CorpusPage,
  mode: Mode,
  capture: () => Promise<Uint8Array>,
  cell: Cell,
): Promise<void> {
  const started = performance.now();
  const png = await capture();
  cell.ms.push(performance.now() - started);
  const regions = regionsFor(corpusPage, mode === "viewport" ? "viewport" : "fullPage");
  const results = judgeRegions(decodePng(png), regions);
  // The regions right in the worst run: a page right only sometimes is not right.
  const right = results.filter((r) => r.ok).length;
  cell.right = cell.ms.length === 1 ? right : Math.min(cell.right, right);
  cell.total = regions.length;
  for (const r of results) if (!r.ok) cell.missed.add(r.region.name);
}

if (import.meta.main) {
  await using server = serveCorpus();
  const log = createLogger("warn");
  const capturer = createChromiumCapturer({ timeoutMs: 15_000, allowPrivateNetwork: true, log });
  await capturer.start();
  const service = (options: CaptureOptions) => (path: string) => async () =>
    (await capturer.capture({
      url: server.origin + path,
      deviceType: "desktop",
      colorScheme: "light",
      ...(Object.keys(options).length ? { options } : {}),
    })).image;
  const modes: [Mode, (path: string) => () => Promise<Uint8Array>][] = [
    ["viewport", service({})],
    ["fullPage", service({ fullPage: true })],
    ["fullPage, settle: false", service({ fullPage: true, settle: false })],
  ];
  if (PEER) {
    modes.push(["capture-website fullPage", (path) => async () =>
      new Uint8Array(
        await captureWebsite.buffer(server.origin + path, {
          ...VIEWPORT,
          scaleFactor: 1,
          fullPage: true,
          type: "png",
          launchOptions: { executablePath: CHROMIUM, args: FLAGS, headless: true },
        }),
      )]);
  }
  const cells = new Map<string, Cell>();
  try {
    // Warm-up: the first capture pays the browser launch and the pool.
    await service({})(CORPUS[0].path)();
    for (let run = 0; run < RUNS; run++) {
      for (const corpusPage of CORPUS) {
        for (const [mode, make] of modes) {
          const key = `${corpusPage.name}|${mode}`;
          const cell = cells.get(key) ?? { right: 0, total: 0, ms: [], missed: new Set() };
          cells.set(key, cell);
          await measure(corpusPage, mode, make(corpusPage.path), cell);
        }
      }
    }
  } finally {
    await capturer.close();
  }
  console.log(
    `\nSettle corpus, ${RUNS} runs, median ms (regions right in the worst run); ` +
      `load average ${loadAverage()}, ${new Date().toISOString()}\n`,
  );
  console.log(`| page | ${modes.map(([m]) => m).join(" | ")} |`);
  console.log(`|---|${modes.map(() => "---").join("|")}|`);
  const sums = modes.map(() => ({ right: 0, total: 0 }));
  for (const corpusPage of CORPUS) {
    const row = modes.map(([mode], i) => {
      const cell = cells.get(`${corpusPage.name}|${mode}`)!;
      sums[i].right += cell.right;
      sums[i].total += cell.total;
      return `${cell.right}/${cell.total}, ${Math.round(median(cell.ms))} ms`;
    });
    console.log(`| ${corpusPage.name} | ${row.join(" | ")} |`);
  }
  console.log(`| **all** | ${sums.map((s) => `**${s.right}/${s.total}**`).join(" | ")} |`);
  console.log("\nMissed regions:");
  for (const [key, cell] of cells) {
    if (cell.missed.size) console.log(`- ${key}: ${[...cell.missed].join("; ")}`);
  }
}
