/**
 * The composition root: the stateful services built once from the parts main.ts (or a test)
 * opens, and handed to every router through the app's context (app.ts). Nothing in lib/ imports
 * it; what a handler may use is declared by the HTTP layer (lib/http/app_env.ts).
 */
import { captureCacheOf } from "./capture/service/cache.ts";
import { captureLinksOf } from "./capture/links.ts";
import { createScreenshotService } from "./capture/service/screenshots.ts";
import { createPostCache } from "./posts/cache.ts";
import { instrumentStore } from "./store/instrument.ts";
import { exporterTranscoder, inJobFormat } from "./capture/transcode.ts";
import { createOperatorAuth } from "./http/bearer.ts";
import { createFramer } from "./frame/framer.ts";
import type { AppDeps, AppParts } from "./http/app_env.ts";
import { createObjectStorage } from "./storage/open.ts";
import { createJobBoard } from "./jobs/board.ts";
import { openJobQueue } from "./jobs/open_queue.ts";
import { createJobService } from "./jobs/service.ts";
import { createJobViews } from "./jobs/views.ts";
import { createJobWebhooks } from "./jobs/webhook_events.ts";

export type { AppDeps, AppParts };

/** Builds the stateful services on top of `parts`; pure construction, no I/O. */
export function assembleServices(parts: AppParts): AppDeps {
  const { config, log, clock } = parts;
  // Every store call of the service (caches, rate limiter) is timed for /metrics.
  const store = instrumentStore(parts.store);
  const captureCache = captureCacheOf({ ...parts, store });
  // Without a bucket, results spill into the store (bounded, as long as a capture link).
  const objectStorage = parts.objectStorage ?? createObjectStorage({ config, store, clock, log });
  const screenshots = createScreenshotService({
    // A full page asked as jpeg or webp is joined as PNG and re-encoded by the export codecs.
    capturer: inJobFormat(parts.capture, exporterTranscoder(parts.exporter)),
    cache: captureCache,
    log,
    clock,
    maxConcurrent: config.MAX_CONCURRENT_CAPTURES,
    queueBudgetMs: config.CAPTURE_TIMEOUT_MS,
    // Backstop only: the capturer enforces CAPTURE_TIMEOUT_MS plus bounded settling itself.
    hardTimeoutMs: 2 * config.CAPTURE_TIMEOUT_MS + 15_000,
    // Captures past the cache's bound are kept there, up to the storage's own bound.
    largeResults: objectStorage,
  });
  const posts = createPostCache({ store, log });
  const operatorAuth = createOperatorAuth({ clock, log });
  const captureLinks = captureLinksOf({ ...parts, store });
  // Frames decode and encode on the export's codec path.
  const framer = createFramer({ encoder: parts.exporter.encoder });
  // The queue needs the store as opened (its KV handle), not the instrumented wrapper.
  const queue = parts.jobQueue ?? openJobQueue({ store: parts.store, config, clock, log });
  const board = createJobBoard({ store, clock });
  const views = createJobViews({ board, objectStorage, clock });
  const { webhookBoundary } = parts;
  const webhooks = createJobWebhooks({
    board,
    queue,
    views,
    clock,
    log,
    ...(webhookBoundary && config.WEBHOOK_SECRET
      ? { boundary: webhookBoundary, secret: config.WEBHOOK_SECRET }
      : {}),
  });
  const jobs = createJobService({
    board,
    views,
    queue,
    webhooks,
    ...(webhookBoundary && config.WEBHOOK_SECRET ? { webhookBoundary } : {}),
    store,
    clock,
    log,
    config,
  });
  return {
    ...parts,
    store,
    objectStorage,
    jobs,
    captureCache,
    screenshots,
    posts,
    operatorAuth,
    captureLinks,
    framer,
  };
}
