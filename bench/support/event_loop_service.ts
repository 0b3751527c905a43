/**
 * The service of bench/event_loop.ts, in a process of its own so the bench's client work (building
 * and sending bodies, polling /healthz) never lands on the event loop it measures. A capturer double
 * stands in for Chromium: what is measured is the request path up to a capture, not a render. A
 * timer due every 10 ms records how late it fires; GET /__lateness answers the largest lateness
 * since the last call (and starts a new window). Prints `{"port": n}` when it listens.
 */
import { createCaptureApp } from "../../testing/capture_app.ts";

const TICK_MS = 10;
let worst = 0;
let expected = performance.now() + TICK_MS;
function tick() {
  const now = performance.now();
  worst = Math.max(worst, now - expected);
  expected = now + TICK_MS;
  setTimeout(tick, TICK_MS);
}
setTimeout(tick, TICK_MS);

const t = await createCaptureApp();
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request, info) => {
  if (new URL(request.url).pathname === "/__lateness") {
    const answer = Response.json({ worstMs: worst });
    worst = 0;
    return answer;
  }
  return t.app.fetch(request, info);
});
console.log(JSON.stringify({ port: server.addr.port }));
Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  await t.close();
  Deno.exit(0);
});
