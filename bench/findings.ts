/**
 * The capture report's findings on the finding fixtures (testing/finding_pages.ts: each must
 * report exactly its findings) and on the real-site corpus (bench/real_sites: none may report
 * any), through the real app and the local capturer; then the findings' page script alone on the
 * same pages, its median run time in the page and per evaluate. Printed as Markdown.
 *
 *   deno run -A bench/findings.ts [--runs=5]
 *
 * Loopback only: the corpus is served by bench/real_sites/serve.ts, and the capturer's proxy
 * resolves no name (a page's stray request to another host is refused, never looked up).
 */
import { createChromiumCapturer } from "../lib/capture/local/capturer.ts";
import {
  FINDING_SIGNALS_SCRIPT,
  type FindingSignals,
} from "../lib/capture/page/finding_signals.ts";
import type { CaptureReport } from "../lib/capture/report.ts";
import { createLogger } from "../lib/log.ts";
import { createTestApp } from "../testing/app.ts";
import { servePages } from "../testing/capture_fixtures.ts";
import { closedPort, FINDING_PAGES, findingRoutes } from "../testing/finding_pages.ts";
import { FLAGS, launchBenchChromium } from "./peers/capture.ts";
import { installCorpus } from "./real_sites/install.ts";
import { serveCorpus } from "./real_sites/serve.ts";
import { SITES } from "./real_sites/sites.ts";
import { loadAverage, median } from "./support/measure.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(option("runs") ?? 5);
const TIMEOUT_MS = 15_000;
// The script's own browser resolves only loopback names, as the corpus bench's do: a page's stray
// request to another host fails at once instead of leaving the machine.
const OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1";

await installCorpus();
const loadBefore = loadAverage();
const started = new Date().toISOString().slice(0, 16).replace("T", " ");
const fixtures = servePages(findingRoutes(closedPort()));
const corpus = serveCorpus();
const log = createLogger("warn", (line) => console.error(line));
const capture = createChromiumCapturer({
  timeoutMs: TIMEOUT_MS,
  allowPrivateNetwork: true,
  log,
  // Only loopback literals are reached: any name is unresolvable, so nothing is looked up.
  resolver: () => Promise.resolve([]),
});
const { app, close } = await createTestApp({
  env: {
    ALLOW_PRIVATE_NETWORK: "true",
    RATE_LIMIT_PER_MINUTE: "100000",
    CAPTURE_TIMEOUT_MS: String(TIMEOUT_MS),
  },
  deps: { capture, log },
});

let failedCaptures = 0;
/** The capture's report, or null when the capture failed (a busy machine's 408, say). */
async function reportOf(url: string, options: object = {}): Promise<CaptureReport | null> {
  const response = await app.request("/api/screenshot", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url, forceRefresh: true, ...options }),
  });
  const body = await response.json();
  if (response.status === 200) return body.report;
  failedCaptures++;
  console.error(`${url}: ${response.status} ${body.code}`);
  return null;
}

const kinds = (report: CaptureReport | null) =>
  report ? report.findings.map((f) => f.kind).join(", ") || "none" : "capture failed";
const plural = (count: number, noun: string) => `${count || "no"} ${noun}${count === 1 ? "" : "s"}`;
const pages: { name: string; url: string }[] = [];
let wrong = 0;
try {
  console.log(`## Capture report findings (${started} UTC, load ${loadBefore})\n`);
  console.log("| page | options | expected | reported | total ms | evidence |");
  console.log("| ---- | ------- | -------- | -------- | -------: | -------- |");
  for (const { path, findings, options } of FINDING_PAGES) {
    const url = `${fixtures.origin}${path}`;
    const report = await reportOf(url, options);
    const expected = findings.join(", ") || "none";
    const got = kinds(report);
    if (report && got !== expected) wrong++;
    const evidence = report?.findings.map((f) => f.evidence ?? "").filter(Boolean).join("; ");
    console.log(
      `| ${path} | ${options ? JSON.stringify(options) : ""} | ${expected} | ` +
        `${got === expected ? got : `**${got}**`} | ${report?.timings.total ?? ""} | ` +
        `${evidence ?? ""} |`,
    );
    if (!options) pages.push({ name: path, url });
  }
  console.log(
    "\n| corpus page | findings (viewport) | findings (fullPage) | waits | console errors | failed requests |",
  );
  console.log(
    "| ----------- | ------------------- | ------------------- | ----- | -------------: | --------------: |",
  );
  for (const site of SITES) {
    const url = `${corpus.origin}${site.path}`;
    const viewport = await reportOf(url);
    const full = await reportOf(url, { fullPage: true });
    if ((viewport?.findings.length ?? 0) + (full?.findings.length ?? 0) > 0) wrong++;
    const mark = (report: CaptureReport | null) =>
      report && report.findings.length > 0 ? `**FALSE: ${kinds(report)}**` : kinds(report);
    const errors = viewport && viewport.console.errors + viewport.console.exceptions;
    console.log(
      `| ${site.name} | ${mark(viewport)} | ${mark(full)} | ${viewport?.waits.join(", ") ?? ""} ` +
        `| ${errors ?? ""} | ${viewport?.requests.failed ?? ""} |`,
    );
    pages.push({ name: site.name, url });
  }
  console.log(
    `\n${plural(wrong, "wrong or false finding")}; ${plural(failedCaptures, "failed capture")}.`,
  );
} finally {
  await close();
  await capture.close();
}

// The script alone, on a settled page of each: its own run time in the page (performance.now()
// inside it) and one evaluate's round trip as the render pays it.
const browser = await launchBenchChromium({
  args: [...FLAGS, OFFLINE],
  defaultViewport: { width: 1920, height: 1080 },
});
const inPage: number[] = [];
const roundTrip: number[] = [];
let slowest = { name: "", ms: 0 };
try {
  const page = await browser.newPage();
  for (const { name, url } of pages) {
    await page.goto(url, { waitUntil: "load", timeout: TIMEOUT_MS }).catch(() => {});
    for (let run = 0; run < RUNS; run++) {
      const before = performance.now();
      const signals = await page.evaluate(`(${FINDING_SIGNALS_SCRIPT})()`) as FindingSignals;
      roundTrip.push(performance.now() - before);
      inPage.push(signals.ms);
      if (signals.ms > slowest.ms) slowest = { name: `${name} (run ${run + 1})`, ms: signals.ms };
    }
  }
} finally {
  await browser.close();
  await fixtures.close();
  await corpus.close();
}
const ms = (values: number[]) => median(values).toFixed(1);
const max = (values: number[]) => Math.max(...values).toFixed(1);
console.log(
  `\nThe findings' page script on ${pages.length} pages x ${RUNS} runs: median ` +
    `${ms(inPage)} ms in the page (max ${max(inPage)}, ${slowest.name}), ${ms(roundTrip)} ms ` +
    `per evaluate (max ${max(roundTrip)}); load after ${loadAverage()}.`,
);
if (wrong > 0 || failedCaptures > 0) Deno.exitCode = 1;
