/** The Markdown report of `deno task load` (bench/load.ts). */
import { formatStatuses, type RunResult } from "./runner.ts";
import type { LogWindow } from "./log.ts";
import type { MemorySample } from "./service.ts";
import { loadAverage } from "../support/measure.ts";

export type Measured = RunResult & { log: LogWindow };

/** Everything bench/load.ts measured, in the order it ran. */
export interface LoadOutcome {
  idle: MemorySample;
  /** Capture, lookup and media runs, then the export runs. */
  results: Measured[];
  /** The generator's ceiling: the media body straight from the upstream. */
  ceiling: Measured;
  /** One client IP past the limit. */
  limited: Measured;
  before: MemorySample;
  flood: Measured;
  settled: MemorySample;
  final: MemorySample;
  health: { store: string; encoder: string };
  recoveredStatus: number;
  recovered: { cached?: boolean };
  recoveryMs: number;
}

export interface ReportMeta {
  seconds: number;
  runsBeforeExport: number;
  floodConnections: number;
  perIp: number;
  loadBefore: string;
  logs: { lines: number; counts: Map<string, number> };
  exitCode: number;
  wallSeconds: number;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const mb = (m: MemorySample) => `${fmt(m.denoMb)}`;
const chromium = (m: MemorySample) =>
  `${fmt(m.chromiumRssMb)} (PSS ${fmt(m.chromiumPssMb)}, ${m.chromiumProcesses} procs)`;

function row(r: RunResult, label = r.scenario) {
  return `| ${label} | ${r.connections} | ${r.total} | ${fmt(r.rps)} | ${fmt(r.p50)} | ` +
    `${fmt(r.p99)} | ${r.errors} | ${formatStatuses(r.statuses)} | ${r.unexpected} | ` +
    `${mb(r.memoryStart)} -> ${mb(r.memory)} | ${fmt(r.memory.chromiumRssMb)} ` +
    `(PSS ${fmt(r.memory.chromiumPssMb)}) |`;
}

/** What the service itself logged during the run. */
function logRow(r: Measured) {
  const cache = Object.entries(r.log.cache).map(([k, v]) => `${k} ${v}`).join(", ") || "-";
  const warnings = Object.entries(r.log.warnings).map(([k, v]) => `${k} x${v}`).join("; ");
  return `| ${r.scenario} | ${r.connections} | ${r.log.requests} | ${fmt(r.log.okMedianMs)} | ` +
    `${cache} | ${r.log.failedOpen} | ${warnings || "none"} |`;
}

const LOG_HEADER = "| Scenario | Conns | Requests logged | Service-side median ms of 200s | " +
  "Cache (hit/miss) | Rate limiter failed open | Warnings logged |\n" +
  "|---|---:|---:|---:|---|---:|---|";

const HEADER = "| Scenario | Conns | Requests | Req/s | p50 ms | p99 ms | Errors | Statuses | " +
  "Failed not by design | Deno RSS MB, start -> peak | Chromium peak RSS MB (sum) |\n" +
  "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|";

/** Prints the tables and checks; returns what failed, for the exit code. */
export function printReport(r: LoadOutcome, meta: ReportMeta) {
  console.log(`# Load: real main.ts, ${meta.seconds} s per run\n`);
  console.log(
    `Load average before: ${meta.loadBefore}; after: ${loadAverage()} (2 cores, shared).`,
  );
  console.log(`Idle after start: Deno ${mb(r.idle)} MB RSS, Chromium ${chromium(r.idle)}.`);
  console.log(
    `Service: store ${r.health.store}, exports on ${r.health.encoder}; ` +
      `client IPs from 198.18.0.0/15, ${meta.perIp} requests each (limit 20/min).\n`,
  );
  console.log(HEADER);
  const split = meta.runsBeforeExport; // capture, lookup and media runs come first
  const ordered = [...r.results.slice(0, split), r.ceiling, r.limited, ...r.results.slice(split)];
  for (const result of ordered) console.log(row(result));
  console.log(
    `\n## Uncached captures past the queue bound (${meta.floodConnections} connections)\n`,
  );
  console.log(HEADER);
  console.log(row(r.flood));
  const rss = (m: MemorySample) => `Deno ${mb(m)} MB, Chromium ${chromium(m)}`;
  console.log(`\n- Before the flood: ${rss(r.before)}`);
  console.log(`- Peak during the flood: ${rss(r.flood.memory)}`);
  console.log(`- 8 s after the flood: ${rss(r.settled)}`);
  console.log(`- 8 s after the last (export) run: ${rss(r.final)}`);
  console.log(
    `- Recovery without restart: a new capture 3 s after the flood answered ` +
      `${r.recoveredStatus} (cached: ${r.recovered.cached}) in ${fmt(r.recoveryMs)} ms`,
  );
  console.log(`\n## What the service logged during each run\n`);
  console.log(LOG_HEADER);
  for (const result of [...ordered, r.flood]) {
    if (result !== r.ceiling) console.log(logRow(result));
  }
  const all = [...r.results, r.ceiling, r.limited, r.flood];
  const checked = all.reduce((sum, x) => sum + x.checked, 0);
  const problems = all.flatMap((x) =>
    x.problems.map((p) => `${x.scenario} @${x.connections}: ${p}`)
  );
  console.log(`\n## Checks\n`);
  console.log(
    `- Bodies sample-checked (every non-2xx against the envelope): ${checked}; ` +
      `problems: ${problems.length ? problems.join("; ") : "none"}`,
  );
  const failed = all.reduce((sum, x) => sum + x.unexpected, 0);
  console.log(`- Requests failed other than by design (all runs): ${failed}`);
  console.log(
    `- Client IP 203.0.113.7 got ${r.limited.statuses["200"] ?? 0} captures through ` +
      `(limit 20/min), then ${r.limited.statuses["429"] ?? 0} x 429`,
  );
  console.log(
    `- Service log: ${meta.logs.lines} lines; warn/error: ` +
      ([...meta.logs.counts].map(([k, v]) => `${k} x${v}`).join("; ") || "none"),
  );
  console.log(`- Service exit code after SIGTERM: ${meta.exitCode}`);
  console.log(`- Wall time: ${fmt(meta.wallSeconds)} s`);
  return { failed, problems };
}
