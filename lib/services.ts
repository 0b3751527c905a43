/**
 * The service graph: the stateful services built once from the parts main.ts (or a test) opens,
 * and handed to every router through the app's context (app.ts).
 */
import { type CaptureCache, captureCacheOf } from "./capture/cache.ts";
import { createScreenshotService, type ScreenshotService } from "./capture/service.ts";
import type { AdFilters } from "./capture/filter_lists.ts";
import type { Capturer } from "./capture/types.ts";
import type { ImageExporter } from "./codecs/exporter.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import { createPostCache, type PostCache } from "./posts/cache.ts";
import type { Store } from "./store/store.ts";
import type { Clock } from "./clock.ts";
import { instrumentStore } from "./telemetry/instrument.ts";
import { METRICS, type Metrics } from "./telemetry/metrics.ts";
import { createOperatorAuth, type OperatorAuth } from "./http/bearer.ts";
import type { Upstreams } from "./upstreams.ts";

/**
 * The components main.ts (or a test) opens, launches or injects: each arrives ready, and the
 * app never opens or launches anything itself.
 */
export interface AppParts {
  config: Config;
  store: Store;
  log: Logger;
  clock: Clock;
  /** Outbound HTTP for upstreams; Deno's own fetch in production (honours HTTPS_PROXY). */
  fetch: typeof fetch;
  /** Origins and budgets of the syndication and media upstreams (loopback in tests). */
  upstreams: Upstreams;
  /** Renders pages (the Chromium pool in production; lib/capture/types.ts). */
  capture: Capturer;
  /** Recompresses uploads for POST /api/export (sharp or the wasm Worker pool). */
  exporter: ImageExporter;
  /** The filter lists behind blockAds; absent, blockAds answers 503. */
  adFilters?: AdFilters;
}

/** Everything a handler may use: the parts plus the services built on them, once per app. */
export interface AppDeps extends AppParts {
  /** Cached captures in the store, shared by the screenshot route and the cache purge. */
  captureCache: CaptureCache;
  /** Cache, single flight and concurrency bound in front of `capture`. */
  screenshots: ScreenshotService;
  /** Store-backed, coalescing post lookups. */
  posts: PostCache;
  /** The Prometheus registry and instruments of GET /metrics (one per process). */
  metrics: Metrics;
  /** Bearer check of the operator endpoints, with per-IP throttling of failed attempts. */
  operatorAuth: OperatorAuth;
}

/** Builds the stateful services on top of `parts`; pure construction, no I/O. */
export function assembleServices(parts: AppParts): AppDeps {
  const { config, log, clock } = parts;
  // Every store call of the service (caches, rate limiter) is timed for /metrics.
  const store = instrumentStore(parts.store);
  const captureCache = captureCacheOf({ ...parts, store });
  const screenshots = createScreenshotService({
    capturer: parts.capture,
    cache: captureCache,
    log,
    clock,
    maxConcurrent: config.MAX_CONCURRENT_CAPTURES,
    queueBudgetMs: config.CAPTURE_TIMEOUT_MS,
    // Backstop only: the capturer enforces CAPTURE_TIMEOUT_MS plus bounded settling itself.
    hardTimeoutMs: 2 * config.CAPTURE_TIMEOUT_MS + 15_000,
  });
  const posts = createPostCache({ store, log });
  const operatorAuth = createOperatorAuth({ clock, log });
  return { ...parts, store, captureCache, screenshots, posts, metrics: METRICS, operatorAuth };
}
