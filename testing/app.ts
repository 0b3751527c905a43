import { createApp } from "../app.ts";
import { createAdFilters } from "../lib/capture/filter_lists.ts";
import { createVideoEncoders } from "../lib/codecs/video_encoder.ts";
import { createCaptureBackends } from "../lib/capture/backends.ts";
import { type AppParts, assembleServices } from "../lib/services.ts";
import { createWasmExporter } from "../lib/codecs/exporter.ts";
import { parseConfig } from "../lib/config.ts";
import { createMemoryLogger } from "../lib/log.ts";
import { createKvStore } from "../lib/store/deno_kv.ts";
import type { Clock } from "../lib/clock.ts";
import { DEFAULT_UPSTREAMS } from "../lib/upstreams.ts";

/** A clock tests move by hand instead of sleeping. */
export function manualClock(start = Date.UTC(2026, 0, 1)): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

export interface TestAppOptions {
  /** Environment variables as an operator would set them (docs/configuration.md). */
  env?: Record<string, string>;
  /** Components to use instead of the defaults (in-memory KV, memory logger, real clock). */
  deps?: Partial<AppParts>;
}

/** An app over an in-memory KV store; `close()` releases everything the helper opened. */
export async function createTestApp(options: TestAppOptions = {}) {
  const log = createMemoryLogger();
  const clock = options.deps?.clock ?? { now: () => Date.now() };
  const kv = await Deno.openKv(":memory:");
  const config = parseConfig(options.env ?? {});
  const store = options.deps?.store ?? createKvStore(kv, clock);
  // Filter lists only when the test names its own (loopback) lists: never the public defaults.
  const env = options.env ?? {};
  const adFilters = options.deps?.adFilters ??
    (env.ADBLOCK_LIST_URLS || env.ANNOYANCE_LIST_URLS
      ? createAdFilters({
        urls: env.ADBLOCK_LIST_URLS ? config.ADBLOCK_LIST_URLS : [],
        annoyanceUrls: env.ANNOYANCE_LIST_URLS ? config.ANNOYANCE_LIST_URLS : [],
        store,
        log,
        clock,
        fetch,
      })
      : undefined);
  if (!options.deps?.adFilters) await adFilters?.start();
  const videoEncoders = options.deps?.videoEncoders ??
    createVideoEncoders({ ffmpegPath: config.FFMPEG_PATH });
  const deps = assembleServices({
    config,
    store,
    log,
    clock,
    fetch: globalThis.fetch,
    upstreams: DEFAULT_UPSTREAMS,
    // Real Chromium behind the egress proxy (plus BROWSER_WS_ENDPOINT if the env sets it),
    // launched or connected only if a test captures; close() ends it.
    capture: options.deps?.capture ??
      createCaptureBackends({ config, log, adFilters, videoEncoders }),
    // wasm path; its Workers start only if a test exports, and close() stops them.
    exporter: createWasmExporter(),
    adFilters,
    videoEncoders,
    ...options.deps,
  });
  const app = createApp(deps);
  return {
    app,
    deps,
    log,
    /** Closes the in-memory KV (through the store when the default store was used). */
    async close() {
      if (!options.deps?.adFilters) adFilters?.close();
      if (options.deps?.store) kv.close();
      else await deps.store.close();
      if (!options.deps?.exporter) await deps.exporter.close();
      if (!options.deps?.capture) await deps.capture.close();
    },
  };
}
