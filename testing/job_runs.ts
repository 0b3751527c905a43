/**
 * Capture jobs driven over HTTP against real service processes (testing/service_process.ts), for
 * the fault tests of tests/jobs/ and bench/jobs.ts: a loopback server of distinct small pages,
 * submitting a job, reading its view, and reading the worker's `job item` log lines. No
 * assertions here: the tests assert, the bench reports.
 */
import type { JobView } from "../lib/jobs/views.ts";
import { chromiumProcesses, chromiumProfiles } from "./fault_checks.ts";
import type { LogLine, ServiceProcess } from "./service_process.ts";
import { BROWSER_WAIT_MS, eventually } from "./wait.ts";

export interface DistinctPages extends AsyncDisposable {
  origin: string;
  /** The URL of page `n` of the set `set`: every (set, n) is a page of its own. */
  url(set: string, n: number): string;
  /** Requests served so far. */
  readonly hits: number;
}

/**
 * Serves `/<set>/<n>`: a small page whose colour and title follow its path, so no two URLs share
 * a cache entry and each capture is a real render.
 */
export function serveDistinctPages(): DistinctPages {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    hits++;
    const path = new URL(request.url).pathname;
    const hue = [...path].reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) % 360, 7);
    return new Response(
      `<!doctype html><html><head><meta charset="utf-8"><title>${path}</title></head>` +
        `<body style="margin:0;height:100vh;display:grid;place-items:center;` +
        `background:hsl(${hue} 60% 70%);font:40px sans-serif">${path}</body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    url: (set, n) => `${origin}/${encodeURIComponent(set)}/${n}`,
    get hits() {
      return hits;
    },
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** POSTs a job of one capture request per URL; its id, or an error with the answer. */
export async function submitJob(
  base: string,
  urls: string[],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await fetch(`${base}/api/jobs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ requests: urls.map((url) => ({ url })), ...extra }),
  });
  const body = await response.json();
  if (response.status !== 202) {
    throw new Error(`POST /api/jobs answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.id;
}

/** GET /api/jobs/{id}; an error unless it answers 200. */
export async function jobView(base: string, id: string): Promise<JobView> {
  const response = await fetch(`${base}/api/jobs/${id}`);
  if (response.status !== 200) {
    throw new Error(`GET /api/jobs/${id} answered ${response.status}: ${await response.text()}`);
  }
  return await response.json();
}

/** Polls the job on `base` until `reached` holds; the view that satisfied it. */
export async function untilJob(
  base: string,
  id: string,
  reached: (view: JobView) => boolean,
  options: { what: string; timeoutMs: number; intervalMs?: number },
): Promise<JobView> {
  let last: JobView | undefined;
  await eventually(async () => reached(last = await jobView(base, id)), options.what, {
    timeoutMs: options.timeoutMs,
    intervalMs: options.intervalMs ?? 100,
  });
  return last!;
}

/** Whether every item of the view is final. */
export const finished = (view: JobView) => view.finishedAt !== undefined;

/** The bytes of item `n` (GET /api/jobs/{id}/items/{n}), with the answer's status and type. */
export async function itemBytes(base: string, id: string, n: number) {
  const response = await fetch(`${base}/api/jobs/${id}/items/${n}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, contentType: response.headers.get("content-type"), bytes };
}

/** What one run of the worker logged on finishing an item (lib/jobs/worker.ts `job item`). */
export interface ItemLine {
  item: number;
  tries: number;
  outcome: string;
  /** False when another run's result stood (this run's claim had lapsed). */
  applied: boolean;
  ms: number;
}

/** The `job item` lines of `service` for the job `id`. */
export function itemLines(service: Pick<ServiceProcess, "lines">, id: string): ItemLine[] {
  return service.lines
    .filter((line: LogLine) => line.msg === "job item" && line.jobId === id)
    .map((line) => ({
      item: Number(line.item),
      tries: Number(line.tries),
      outcome: String(line.outcome),
      applied: line.applied === true,
      ms: Number(line.ms),
    }));
}

/** The environment every job-running instance of the tests and the bench shares. */
export const JOB_SERVICE_ENV: Record<string, string> = {
  // The pages are on loopback, which only this development switch lets captures reach.
  ALLOW_PRIVATE_NETWORK: "true",
  // Neither jobs nor synchronous captures may be paced by the per-IP window here.
  RATE_LIMIT_PER_MINUTE: "100000",
  CHROME_PATH: "/usr/bin/chromium",
  LOG_LEVEL: "info",
};

/**
 * Kills the instance as a crash or an OOM kill would: SIGKILL to the service, then to every
 * Chromium process it had started (a dead container takes its browser with it), and removes
 * their temporary profiles. Resolves once the service has exited.
 */
export async function killInstance(service: ServiceProcess): Promise<void> {
  service.signal("SIGKILL");
  await service.status;
  for (const { pid } of chromiumProcesses({ ownerPid: service.pid })) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Exited on its own meanwhile.
    }
  }
  await eventually(
    () => chromiumProcesses({ ownerPid: service.pid }).length === 0,
    "the killed instance's Chromium processes to exit",
    { timeoutMs: BROWSER_WAIT_MS, intervalMs: 100 },
  );
  const dir = Deno.env.get("TMPDIR") ?? "/tmp";
  for (const name of chromiumProfiles(service.pid)) {
    await Deno.remove(`${dir}/${name}`, { recursive: true }).catch(() => {});
  }
}
