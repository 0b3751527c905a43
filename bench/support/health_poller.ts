/**
 * Polls a service's /healthz one request after another from a Worker of its own, so a latency
 * measures the service and not the bench's own event loop (which is busy sending a 33 MiB body
 * at the same time). Told `{ base }` to start and `"stop"` to stop; answers with the latencies.
 */
/// <reference lib="deno.worker" />

let polling = false;

self.onmessage = async (event: MessageEvent<{ base: string } | "stop">) => {
  if (event.data === "stop") {
    polling = false;
    return;
  }
  polling = true;
  const latencies: number[] = [];
  while (polling) {
    const start = performance.now();
    const res = await fetch(`${event.data.base}/healthz`);
    await res.body?.cancel();
    latencies.push(performance.now() - start);
  }
  self.postMessage(latencies);
};
