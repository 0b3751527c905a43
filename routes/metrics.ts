import { createRouter } from "../lib/http/router.ts";
import { operatorCaller } from "../lib/http/middleware.ts";
import { METRICS as metrics } from "../lib/telemetry/metrics.ts";

/**
 * GET /metrics: Prometheus text exposition (docs/operating.md), behind METRICS_TOKEN. Registered
 * with plain `router.get`, so it never appears in /openapi.json or /llms*.txt.
 */
export function createMetricsRouter() {
  return createRouter().get("/metrics", async (c) => {
    const { config, screenshots, operatorAuth } = c.var.deps;
    // Mounted only when the token is set (see createApp); checked again so a mistake fails closed.
    operatorAuth.require(operatorCaller(c), config.METRICS_TOKEN, "metrics");
    // Gauges are read at scrape time from the service that owns the numbers.
    const { running, queued } = screenshots.stats();
    metrics.captureQueueDepth.set(queued);
    metrics.capturesInFlight.set(running);
    c.header("Cache-Control", "no-store");
    c.header("Content-Type", metrics.registry.contentType);
    return c.body(await metrics.registry.metrics(), 200);
  });
}
