/**
 * Where one capture's time and CPU go, phase by phase, for an isolated capture (a fresh context
 * set up as the service sets it up) and for a reused page: wall ms and CPU ms of this Deno
 * process and of Chromium's process tree, read from /proc around each phase.
 */
import type { Browser, Page } from "puppeteer-core";
import { emulateDevice, userAgentsOf } from "../../lib/capture/page/context.ts";
import { lockDownPage } from "../../lib/capture/page/lockdown.ts";
import { createCaptureCache, jobKey } from "../../lib/capture/service/cache.ts";
import type { Store } from "../../lib/store/store.ts";
import type { Logger } from "../../lib/log.ts";
import { descendantsOf, median } from "./measure.ts";

/** CPU seconds of a process including its reaped children (Chromium's zygote reaps renderers). */
function cpuWithChildren(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of this process and of the browser's tree, so far. */
export function cpuNow(browserPid: number): { deno: number; chromium: number } {
  const tree = [browserPid, ...descendantsOf(browserPid)];
  return {
    deno: cpuWithChildren(Deno.pid),
    chromium: tree.reduce((sum, pid) => sum + cpuWithChildren(pid), 0),
  };
}

type Sample = { wall: number; deno: number; chromium: number };
export type PhaseTable = Map<string, Sample[]>;

/** Runs `work` as the phase `name`, recording wall and CPU ms into `table`. */
async function phase<T>(
  table: PhaseTable,
  name: string,
  pid: number,
  work: () => Promise<T>,
): Promise<T> {
  const cpu = cpuNow(pid);
  const started = performance.now();
  const result = await work();
  const wall = performance.now() - started;
  const after = cpuNow(pid);
  const sample = {
    wall,
    deno: (after.deno - cpu.deno) * 1000,
    chromium: (after.chromium - cpu.chromium) * 1000,
  };
  table.set(name, [...table.get(name) ?? [], sample]);
  return result;
}

// Load, then fonts (what the service's settle script waits for on this page, which has no lazy images).
const LOADED = `new Promise((resolve) => document.readyState === "complete"
  ? resolve() : addEventListener("load", resolve, { once: true })).then(() => document.fonts.ready)
  .then(() => true)`;

export interface PhaseRun {
  browser: Browser;
  browserPid: number;
  store: Store;
  log: Logger;
  url(): string;
}

/** The shared tail of both captures: navigate, settle, shoot, answer, write to the cache. */
async function shootPhases(table: PhaseTable, run: PhaseRun, page: Page, write: boolean) {
  const pid = run.browserPid;
  const url = run.url();
  await phase(
    table,
    "navigation (to DOMContentLoaded)",
    pid,
    () => page.goto(url, { waitUntil: "domcontentloaded" }),
  );
  await phase(table, "settle (load, fonts)", pid, () => page.evaluate(LOADED));
  const png = await phase(
    table,
    "screenshot (captureScreenshot, PNG encode)",
    pid,
    () => page.screenshot({ type: "png", optimizeForSpeed: true, captureBeyondViewport: false }),
  );
  await phase(table, "base64 + JSON answer", pid, () =>
    Promise.resolve(
      JSON.stringify({ screenshot: new Uint8Array(png).toBase64(), url, cached: false }).length,
    ));
  if (!write) return;
  const cache = createCaptureCache({ store: run.store, log: run.log, ttlMs: 60_000 });
  const key = await jobKey({ url, deviceType: "desktop", colorScheme: "light" });
  await phase(table, "cache write (Deno KV)", pid, () =>
    cache.set(
      key,
      {
        image: new Uint8Array(png),
        format: "png",
        targetStatus: 200,
        strategy: "bench",
        capturedAt: Date.now(),
      },
    ));
}

/** One isolated capture, the service's context set-up split into its steps. */
export async function isolatedPhases(table: PhaseTable, run: PhaseRun): Promise<void> {
  const pid = run.browserPid;
  const agents = userAgentsOf(await run.browser.userAgent());
  const context = await phase(
    table,
    "context (createBrowserContext)",
    pid,
    () =>
      run.browser.createBrowserContext({
        proxyServer: "direct://",
        downloadBehavior: { policy: "deny" },
      }),
  );
  const page = await phase(
    table,
    "target + window + renderer (newPage)",
    pid,
    () => context.newPage(),
  );
  await phase(table, "lockdown script", pid, async () => {
    page.on("dialog", (dialog) => void dialog.dismiss().catch(() => {}));
    await lockDownPage(page);
  });
  await phase(
    table,
    "emulation (viewport, UA, scheme)",
    pid,
    () => emulateDevice(page, { deviceType: "desktop", colorScheme: "light" }, agents),
  );
  await shootPhases(table, run, page, true);
  await phase(table, "context close", pid, () => context.close());
}

/** One capture on a reused page (already sized). */
export function reusedPhases(table: PhaseTable, run: PhaseRun, page: Page): Promise<void> {
  return shootPhases(table, run, page, true);
}

/** The Markdown table: median wall ms, mean CPU ms (10 ms ticks: only means are meaningful). */
export function phaseRows(isolated: PhaseTable, reused: PhaseTable): string {
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const cell = (s: Sample[] | undefined) =>
    s
      ? `${median(s.map((x) => x.wall)).toFixed(0)} | ${mean(s.map((x) => x.deno)).toFixed(0)} | ${
        mean(s.map((x) => x.chromium)).toFixed(0)
      }`
      : "- | - | -";
  const rows = [...isolated.keys()].map((name) =>
    `| ${name} | ${cell(isolated.get(name))} | ${cell(reused.get(name))} |`
  );
  const total = (t: PhaseTable, k: keyof Sample) =>
    [...t.values()].reduce(
      (sum, s) => sum + (k === "wall" ? median(s.map((x) => x.wall)) : mean(s.map((x) => x[k]))),
      0,
    )
      .toFixed(0);
  rows.push(
    `| **total** | ${total(isolated, "wall")} | ${total(isolated, "deno")} | ${
      total(isolated, "chromium")
    } | ${total(reused, "wall")} | ${total(reused, "deno")} | ${total(reused, "chromium")} |`,
  );
  return `| phase | isolated wall ms (median) | Deno CPU ms (mean) | Chromium CPU ms (mean) | reused wall ms | Deno CPU ms | Chromium CPU ms |
|---|---:|---:|---:|---:|---:|---:|
${rows.join("\n")}`;
}
