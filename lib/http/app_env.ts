import type { CaptureCache } from "../capture/service/cache.ts";
import type { CaptureLinks } from "../capture/links.ts";
import type { ScreenshotService } from "../capture/service/screenshots.ts";
import type { AdFilters } from "../capture/filter_lists.ts";
import type { Capturer } from "../capture/types.ts";
import type { ImageExporter } from "../codecs/exporter.ts";
import type { VideoEncoders } from "../codecs/video_encoder.ts";
import type { Config } from "../config.ts";
import type { LogFields, Logger } from "../log.ts";
import type { PostCache } from "../posts/cache.ts";
import type { Store } from "../store/store.ts";
import type { Clock } from "../clock.ts";
import type { OperatorAuth } from "./bearer.ts";
import type { Upstreams } from "../upstreams.ts";
import type { Framer } from "../frame/framer.ts";
import type { ObjectStorage } from "../storage/types.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { JobService } from "../jobs/service.ts";
import type { WebhookBoundary } from "../webhooks/boundary.ts";

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
  /** ffmpeg's encoders for recordings (FFMPEG_PATH); absent, a recording answers 503. */
  videoEncoders?: VideoEncoders;
  /**
   * Where job results and captures past the cache's bound are written (the S3_* bucket); absent,
   * they spill into the store (lib/storage/open.ts).
   */
  objectStorage?: ObjectStorage;
  /** The durable queue of jobs; absent, the store's own (lib/jobs/open_queue.ts). */
  jobQueue?: JobQueue;
  /** The webhooks' egress proxy (main.ts builds it when WEBHOOK_SECRET is set). */
  webhookBoundary?: WebhookBoundary;
}

/** Everything a handler may use: the parts plus the services built on them, once per app. */
export interface AppDeps extends AppParts {
  /** Cached captures in the store, shared by the screenshot route and the cache purge. */
  captureCache: CaptureCache;
  /** Cache, single flight and concurrency bound in front of `capture`. */
  screenshots: ScreenshotService;
  /** Store-backed, coalescing post lookups. */
  posts: PostCache;
  /** Bearer check of the operator endpoints, with per-IP throttling of failed attempts. */
  operatorAuth: OperatorAuth;
  /** Captures an MCP tool answered, kept CAPTURE_LINK_TTL_SECONDS under unguessable links. */
  captureLinks: CaptureLinks;
  /** The frame step of captures and of POST /api/frame, on the export's codec path. */
  framer: Framer;
  /** The parts' object storage, or the store spill when none was given. */
  objectStorage: ObjectStorage;
  /** Capture jobs: submit, read, cancel (the worker runs them, lib/jobs/worker.ts). */
  jobs: JobService;
}

/** Hono environment shared by every router, so handlers see one typed context. */
export interface AppEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    /** Fields a handler adds to the request's access-log line (cache hit, strategy...). */
    logFields: LogFields;
  };
}
