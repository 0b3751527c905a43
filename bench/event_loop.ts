/**
 * How long one request can hold the service's event loop: for each worst-case shape of
 * bench/support/event_loop_shapes.ts, the service (bench/support/event_loop_service.ts, its own
 * process, a capturer double instead of Chromium) serves the request while /healthz is polled
 * back to back (from a Worker); printed per shape: body size, answer status and size, the longest
 * lateness of the service's 10 ms timer (its longest stall) and /healthz latency p50/p99/max.
 *
 *   deno run -A bench/event_loop.ts            # every shape
 *   deno run -A bench/event_loop.ts ping cookie # the shapes whose name contains a word
 */
import { spawnJsonChild } from "../testing/json_child.ts";
import { SHAPES } from "./support/event_loop_shapes.ts";
import { loadAverage, median, quantile } from "./support/measure.ts";

// The server is not killed mid-request: a shape that stalls it for minutes is left out by name.
const REQUEST_TIMEOUT_MS = 600_000;

const words = Deno.args;
const shapes = SHAPES.filter((s) => words.length === 0 || words.some((w) => s.name.includes(w)));
const service = await spawnJsonChild<{ port: number }>(
  new URL("./support/event_loop_service.ts", import.meta.url).pathname,
);
const base = `http://127.0.0.1:${service.info.port}`;

async function worstStallMs(): Promise<number> {
  return (await (await fetch(`${base}/__lateness`)).json()).worstMs;
}

// /healthz is polled from a Worker: the bench's own loop is busy sending the body meanwhile.
const poller = new Worker(new URL("./support/health_poller.ts", import.meta.url), {
  type: "module",
});

/** Starts polling /healthz; the returned stop() resolves with the latency of each poll. */
function pollHealth(): () => Promise<number[]> {
  poller.postMessage({ base });
  return () => {
    const latencies = new Promise<number[]>((resolve) => {
      poller.onmessage = (event: MessageEvent<number[]>) => resolve(event.data);
    });
    poller.postMessage("stop");
    return latencies;
  };
}

const fmt = (ms: number) => ms.toFixed(ms < 10 ? 1 : 0);

console.log(`load at start: ${loadAverage()}`);
console.log(
  "| shape | body | status | answer | took (ms) | longest stall (ms) | /healthz p50 / p99 / max (ms) |",
);
console.log("| --- | --: | --: | --: | --: | --: | --: |");
try {
  // Warm up: module code, the tool list and the JIT paths of an ordinary request.
  for (const shape of shapes.slice(0, 1)) {
    await fetch(`${base}${shape.path}`, { method: "POST", headers: shape.headers, body: "{}" })
      .then((r) => r.body?.cancel());
  }
  for (const shape of shapes) {
    const body = shape.body();
    await worstStallMs(); // a new window
    const stopPolling = pollHealth();
    const start = performance.now();
    const res = await fetch(`${base}${shape.path}`, {
      method: "POST",
      headers: shape.headers,
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const answer = new Uint8Array(await res.arrayBuffer());
    const took = performance.now() - start;
    const latencies = await stopPolling();
    const stall = await worstStallMs();
    const code = /"code":\s*"?([-\w]+)/.exec(new TextDecoder().decode(answer.subarray(0, 400)));
    console.log(
      `| ${shape.name} | ${kib(body.length)} | ${res.status}${code ? ` ${code[1]}` : ""} | ` +
        `${kib(answer.length)} | ${fmt(took)} | ${fmt(stall)} | ` +
        `${fmt(median(latencies))} / ${fmt(quantile(latencies, 0.99))} / ` +
        `${fmt(Math.max(...latencies))} |`,
    );
  }
} finally {
  poller.terminate();
  await service.stop();
}
console.log(`load at end: ${loadAverage()}`);

function kib(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
    : `${(bytes / 1024).toFixed(1)} KiB`;
}
