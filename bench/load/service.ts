/**
 * Helpers of `deno task load` and `deno task bench:peers`: the real main.ts as a child process
 * (logs to a file, so writing them costs what it costs in production and nothing in the load
 * generator), and memory of the service and its Chromium read from /proc.
 */
import { descendantsOf, procBytes, rssOf } from "../support/measure.ts";
import { START_TASK_FLAGS } from "../start_flags.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
// Chromium launches in the background at start; 60 s covers a loaded machine.
const READY_TIMEOUT_MS = 60_000;
const MB = 1024 * 1024;

export interface Service {
  pid: number;
  origin: string;
  /** JSON-lines log of the service (stdout and stderr). */
  logPath: string;
  /** SIGTERM, then the exit code (main.ts drains in-flight requests first). */
  stop(): Promise<number>;
}

/** A free loopback port (closed again at once; the child binds it a moment later). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

/**
 * Starts `deno run main.ts` with `env` on a free port and waits for a ready capture backend;
 * `root` is the checkout to run (another one: to measure an earlier version beside this one).
 */
export async function startService(
  env: Record<string, string>,
  logDir: string,
  root = ROOT,
): Promise<Service> {
  const port = freePort();
  const logPath = `${logDir}/service-${port}.log`;
  // exec: the pid we hold is Deno's own, so /proc figures and SIGTERM reach the service.
  const process = new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$@" > "$LOG" 2>&1',
      "sh",
      Deno.execPath(),
      "run",
      ...START_TASK_FLAGS,
      "main.ts",
    ],
    cwd: root,
    env: {
      // The default filter lists are on the internet; benches talk to loopback only.
      ADBLOCK_LIST_URLS: "http://127.0.0.1:9/filters.txt",
      ANNOYANCE_LIST_URLS: "http://127.0.0.1:9/filters.txt",
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG: logPath,
    },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const origin = `http://127.0.0.1:${port}`;
  const service: Service = {
    pid: process.pid,
    origin,
    logPath,
    async stop() {
      try {
        process.kill("SIGTERM");
      } catch {
        // already gone
      }
      return (await process.status).code;
    },
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = "no answer";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${origin}/healthz`);
      const health = await res.json();
      last = JSON.stringify(health);
      if (health.capture?.some((b: { state: string }) => b.state === "ready")) return service;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await service.stop();
  throw new Error(`service not ready within ${READY_TIMEOUT_MS} ms (last /healthz: ${last})`);
}

export interface MemorySample {
  /** VmRSS of the service process, MB. */
  denoMb: number;
  /** VmRSS summed over every descendant (Chromium), MB: counts shared pages once per process. */
  chromiumRssMb: number;
  /** Proportional set size summed over the same processes, MB: shared pages split fairly. */
  chromiumPssMb: number;
  chromiumProcesses: number;
}

/** One reading of the service's and its Chromium's memory. */
export function sampleMemory(pid: number): MemorySample {
  const kids = descendantsOf(pid);
  return {
    denoMb: rssOf(pid) / MB,
    chromiumRssMb: kids.reduce((sum, kid) => sum + rssOf(kid), 0) / MB,
    chromiumPssMb: kids.reduce((sum, kid) => sum + procBytes(kid, "smaps_rollup", "Pss"), 0) / MB,
    chromiumProcesses: kids.length,
  };
}

/** Samples memory every `intervalMs` until stopped; returns the first sample and the peaks. */
export function watchPeaks(pid: number, intervalMs = 250) {
  const start = sampleMemory(pid);
  const peak: MemorySample = { ...start };
  const take = () => {
    const now = sampleMemory(pid);
    peak.denoMb = Math.max(peak.denoMb, now.denoMb);
    peak.chromiumRssMb = Math.max(peak.chromiumRssMb, now.chromiumRssMb);
    peak.chromiumPssMb = Math.max(peak.chromiumPssMb, now.chromiumPssMb);
    peak.chromiumProcesses = Math.max(peak.chromiumProcesses, now.chromiumProcesses);
  };
  const timer = setInterval(take, intervalMs);
  return {
    stop(): { start: MemorySample; peak: MemorySample } {
      clearInterval(timer);
      take();
      return { start, peak };
    },
  };
}
