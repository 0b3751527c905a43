/**
 * The Prometheus metrics of GET /metrics (docs/operating.md), on prom-client's registry and
 * instruments (the exposition format, histograms included, is prom-client's, not ours).
 *
 * One registry per process, like the OpenTelemetry API's global providers: the numbers describe
 * the process, and a stage deep in the capture or codec code records with one line instead of a
 * registry threaded through every constructor. Tests read differences, never absolute values.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

// Captures take 0.3 s (warm, simple page) to the 15 s page-load budget plus settling.
const CAPTURE_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30];
// Exports take milliseconds (a phone screenshot) to seconds (a large PNG on the wasm path).
const EXPORT_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8];
// Store calls are bounded at 1-5 s by their callers (docs/storage.md).
const STORE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The instruments; label values are small closed sets (never URLs, ids or client addresses). */
export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: "shotline_http_requests_total",
      help: "HTTP requests answered, by route pattern, method and status",
      labelNames: ["route", "method", "status"] as const,
      registers,
    }),
    captureDuration: new Histogram({
      name: "shotline_capture_duration_seconds",
      help: "Time a capture backend spent rendering, by backend and outcome (ok or error code)",
      labelNames: ["backend", "outcome"] as const,
      buckets: CAPTURE_BUCKETS,
      registers,
    }),
    captureQueueDepth: new Gauge({
      name: "shotline_capture_queue_depth",
      help: "Captures waiting for a render slot",
      registers,
    }),
    capturesInFlight: new Gauge({
      name: "shotline_captures_in_flight",
      help: "Captures rendering now",
      registers,
    }),
    captureCache: new Counter({
      name: "shotline_capture_cache_lookups_total",
      help: "Capture cache lookups, by result (hit or miss)",
      labelNames: ["result"] as const,
      registers,
    }),
    browserStarts: new Counter({
      name: "shotline_browser_starts_total",
      help: "Browsers launched (local) or connected (remote); past the first, restarts",
      labelNames: ["backend"] as const,
      registers,
    }),
    browserLosses: new Counter({
      name: "shotline_browser_disconnects_total",
      help: "Browsers that crashed or whose connection dropped",
      labelNames: ["backend"] as const,
      registers,
    }),
    egressRefusals: new Counter({
      name: "shotline_egress_refusals_total",
      help: "Requests of captured pages refused at the network boundary, by reason",
      labelNames: ["reason"] as const,
      registers,
    }),
    proxyBytes: new Counter({
      name: "shotline_media_proxy_bytes_total",
      help: "Body bytes streamed through GET /api/image-proxy",
      registers,
    }),
    captureLinkBytes: new Counter({
      name: "shotline_capture_link_bytes_total",
      help: "Body bytes of kept captures served by GET /api/captures/{id}",
      registers,
    }),
    exportDuration: new Histogram({
      name: "shotline_export_duration_seconds",
      help: "POST /api/export processing time, by format, preset, codec path and outcome",
      labelNames: ["format", "preset", "path", "outcome"] as const,
      buckets: EXPORT_BUCKETS,
      registers,
    }),
    mcpCalls: new Counter({
      name: "shotline_mcp_calls_total",
      help: "MCP tool calls on /mcp, by tool and outcome (ok or error code)",
      labelNames: ["tool", "outcome"] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: "shotline_rate_limit_rejections_total",
      help: "Captures refused with 429 by the per-IP limit",
      registers,
    }),
    storeDuration: new Histogram({
      name: "shotline_store_operation_duration_seconds",
      help: "Store calls, by backend, operation and outcome (ok or error)",
      labelNames: ["store", "operation", "outcome"] as const,
      buckets: STORE_BUCKETS,
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The process's metrics (see the module comment for why there is one). */
export const METRICS: Metrics = createMetrics();

/** Seconds since `started` (a `performance.now()` reading), for histograms. */
export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}
