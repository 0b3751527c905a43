/**
 * One autocannon run of `deno task load`, with a client IP per request (X-Forwarded-For, read
 * by the service with TRUST_PROXY_HOPS=1), status counts, a sample of every non-2xx body
 * checked against the error envelope, and the peak memory of the service and its Chromium.
 */
import autocannon from "autocannon";
import { Buffer } from "node:buffer";
import { type MemorySample, watchPeaks } from "./service.ts";

export interface Scenario {
  name: string;
  method: "GET" | "POST";
  /** Path of request number `n` (counted over the whole process). */
  path: (n: number) => string;
  headers?: Record<string, string>;
  body?: (n: number) => Buffer | string;
  /** Client IP of request number `n`. */
  ip: (n: number) => string;
  /** Statuses that may occur by design (everything else counts as a failure). */
  allowed: number[];
  /** Checks a 200 body (a few are sampled); returns a problem or null. */
  checkOk?: (body: string) => string | null;
}

export interface RunResult {
  scenario: string;
  connections: number;
  seconds: number;
  total: number;
  rps: number;
  p50: number;
  p99: number;
  /** Socket errors and timeouts of the load generator. */
  errors: number;
  statuses: Record<string, number>;
  /** Requests that failed other than by design: errors plus statuses not allowed. */
  unexpected: number;
  /** Bodies checked (non-2xx envelopes and sampled 2xx), and what was wrong with them. */
  checked: number;
  problems: string[];
  /** Memory when the run started, and the peak of each figure during it. */
  memoryStart: MemorySample;
  memory: MemorySample;
}

// Bodies checked per status per run: enough to catch a wrong shape, cheap for the generator.
const SAMPLES_PER_STATUS = 5;
// A capture waits at most for the queue (about 10 captures deep) plus its own 15 s budget.
const TIMEOUT_S = 40;

/** Checks an error body: the error envelope (plus retryAfter for 429), and its headers. */
export function envelopeProblem(
  status: number,
  body: string,
  headers: Record<string, string>,
): string | null {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body);
  } catch {
    return `${status}: body is not JSON`;
  }
  const header = (name: string) =>
    Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const fields = ["error", "code", "message", "hint", "documentation"];
  for (const field of fields) {
    if (typeof json[field] !== "string" || json[field] === "") return `${status}: no ${field}`;
  }
  if (json.message !== json.error) return `${status}: message !== error`;
  if (json.status !== status) return `${status}: body status ${json.status}`;
  if (status === 429) {
    if (json.code !== "rate_limited") return `429: code ${json.code}`;
    if (String(json.retryAfter) !== header("retry-after")) return "429: retryAfter !== Retry-After";
    if (!String(json.hint).includes("20 requests per minute")) return "429: hint lacks the limit";
  }
  if (status === 503) {
    if (json.code !== "upstream_unavailable") return `503: code ${json.code}`;
    if (!/^\d+$/.test(header("retry-after") ?? "")) return "503: no Retry-After";
  }
  return null;
}

let requestNumber = 0;

/** Runs `scenario` at `connections` for `seconds`, sampling memory of `servicePid`. */
export async function runLoad(
  origin: string,
  scenario: Scenario,
  connections: number,
  seconds: number,
  servicePid: number,
): Promise<RunResult> {
  const samples = new Map<number, number>();
  const problems: string[] = [];
  let checked = 0;
  const watcher = watchPeaks(servicePid);
  const result = await autocannon({
    url: origin,
    connections,
    duration: seconds,
    timeout: TIMEOUT_S,
    requests: [{
      method: scenario.method,
      setupRequest(request: Record<string, unknown>) {
        const n = requestNumber++;
        return {
          ...request,
          path: scenario.path(n),
          headers: { ...scenario.headers, "X-Forwarded-For": scenario.ip(n) },
          ...(scenario.body ? { body: scenario.body(n) } : {}),
        };
      },
      onResponse(status: number, body: string, _context: unknown, headers: Record<string, string>) {
        const seen = samples.get(status) ?? 0;
        if (seen >= SAMPLES_PER_STATUS) return;
        samples.set(status, seen + 1);
        checked++;
        const problem = status >= 300
          ? envelopeProblem(status, body, headers)
          : scenario.checkOk?.(body) ?? null;
        if (problem && problems.length < 10) problems.push(problem);
      },
    }],
  });
  const { start: memoryStart, peak: memory } = watcher.stop();
  const statuses: Record<string, number> = {};
  const byStatus = (result.statusCodeStats ?? {}) as Record<string, { count: number }>;
  for (const [code, { count }] of Object.entries(byStatus)) statuses[code] = count;
  const notAllowed = Object.entries(statuses)
    .filter(([code]) => !scenario.allowed.includes(Number(code)))
    .reduce((sum, [, count]) => sum + count, 0);
  const errors = result.errors; // autocannon counts its timeouts among its errors
  return {
    scenario: scenario.name,
    connections,
    seconds: result.duration,
    total: result.requests.total,
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
    statuses,
    unexpected: errors + notAllowed,
    checked,
    problems,
    memoryStart,
    memory,
  };
}

/** `name: count` pairs, most frequent first. */
export function formatStatuses(statuses: Record<string, number>): string {
  return Object.entries(statuses).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}: ${v}`)
    .join(", ");
}

export { Buffer };
