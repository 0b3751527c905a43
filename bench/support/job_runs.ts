/**
 * The timed runs of bench/jobs.ts against service processes: a whole job, the same captures sent
 * synchronously, and a job whose instance is SIGKILLed half-way and restarted. Each returns
 * figures; nothing is asserted (a miss is reported).
 */
import type { JobView } from "../../lib/jobs/views.ts";
import {
  type DistinctPages,
  finished,
  itemLines,
  killInstance,
  submitJob,
  untilJob,
} from "../../testing/job_runs.ts";
import { type ServiceProcess, startService } from "../../testing/service_process.ts";
import { median } from "./measure.ts";

// Bounds that only turn a hang into an error; the figures are what matters.
const JOB_TIMEOUT_MS = 15 * 60_000;
// Polling a finished job: the time taken is the server's (createdAt to finishedAt), so a slow
// poll adds nothing to it and a fast one would only load the service.
const FINISH_POLL_MS = 500;

export interface JobRun {
  view: JobView;
  /** Server time from submission to the last item finished, seconds. */
  seconds: number;
  itemsPerSecond: number;
}

/** Seconds between the job's submission and its end, by the server's own clock. */
export function jobSeconds(view: JobView): number {
  return (Date.parse(view.finishedAt!) - Date.parse(view.createdAt)) / 1000;
}

/** Submits one job of `urls` on `base` and waits for it to finish. */
export async function runJob(base: string, urls: string[]): Promise<JobRun> {
  const id = await submitJob(base, urls);
  const view = await untilJob(base, id, finished, {
    what: `job ${id} to finish`,
    timeoutMs: JOB_TIMEOUT_MS,
    intervalMs: FINISH_POLL_MS,
  });
  const seconds = jobSeconds(view);
  return { view, seconds, itemsPerSecond: view.counts.done / seconds };
}

/**
 * POSTs every URL to /api/screenshot (Accept: image/png), `inFlight` at a time, as fast as the
 * answers come; seconds taken and how many answered 200.
 */
export async function runSynchronous(base: string, urls: string[], inFlight: number) {
  let next = 0;
  let ok = 0;
  const each: number[] = [];
  const started = performance.now();
  const client = async () => {
    while (next < urls.length) {
      const url = urls[next++];
      const sent = performance.now();
      const response = await fetch(`${base}/api/screenshot`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "image/png" },
        body: JSON.stringify({ url }),
      });
      await response.arrayBuffer();
      if (response.status === 200) ok++;
      each.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, client));
  const seconds = (performance.now() - started) / 1000;
  return { seconds, ok, itemsPerSecond: ok / seconds, medianMs: median(each) };
}

export interface FaultRun {
  /** Server time from submission to the end, seconds. */
  seconds: number;
  done: number;
  failed: number;
  /** Items whose result stood more than once (must be 0). */
  twice: number;
  /** Items that took more than one run. */
  retried: number;
  /** Items done when the instance was killed. */
  doneAtKill: number;
}

/**
 * A job of `urls` on a fresh instance with `env`, SIGKILLed (browser included) once half its
 * items are done, then started again with the same `env` to finish it. The restarted instance
 * is left running for the caller to stop.
 */
export async function runKilledJob(
  env: Record<string, string>,
  urls: string[],
): Promise<{ run: FaultRun; restarted: ServiceProcess }> {
  const first = await startService(env);
  const id = await submitJob(first.base, urls);
  const atKill = await untilJob(
    first.base,
    id,
    (view) => view.counts.done >= urls.length / 2 && view.counts.running >= 1,
    { what: "half the items done", timeoutMs: JOB_TIMEOUT_MS, intervalMs: 50 },
  );
  await killInstance(first);
  const restarted = await startService(env);
  const view = await untilJob(restarted.base, id, finished, {
    what: `job ${id} to finish after the restart`,
    timeoutMs: JOB_TIMEOUT_MS,
    intervalMs: FINISH_POLL_MS,
  });
  const lines = [...itemLines(first, id), ...itemLines(restarted, id)];
  const applied = new Map<number, number>();
  for (const line of lines.filter((l) => l.applied)) {
    applied.set(line.item, (applied.get(line.item) ?? 0) + 1);
  }
  return {
    restarted,
    run: {
      seconds: jobSeconds(view),
      done: view.counts.done,
      failed: view.counts.failed,
      twice: [...applied.values()].filter((count) => count > 1).length,
      retried: view.items.filter((item) => item.tries > 1).length,
      doneAtKill: atKill.counts.done,
    },
  };
}

/** `count` distinct page URLs of the set `set`. */
export function pageUrls(pages: DistinctPages, set: string, count: number): string[] {
  return Array.from({ length: count }, (_, n) => pages.url(set, n));
}
