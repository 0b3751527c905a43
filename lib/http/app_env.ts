import type { Capturer } from "../capture/types.ts";
import type { ImageExporter } from "../codecs/exporter.ts";
import type { Config } from "../config.ts";
import type { LogFields, Logger } from "../log.ts";
import type { Clock, Store } from "../store/store.ts";
import type { Upstreams } from "../upstreams.ts";

/**
 * Everything a handler may use, built by main.ts (or a test) and handed to createApp.
 * Components arrive ready; the app never opens or launches anything itself.
 */
export interface AppDeps {
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
