import { createApp } from "./app.ts";
import { createAdFilters } from "./lib/capture/filter_lists.ts";
import { createVideoEncoders } from "./lib/codecs/video_encoder.ts";
import { createCaptureBackends } from "./lib/capture/backends.ts";
import { createImageExporter } from "./lib/codecs/exporter.ts";
import { ConfigError, parseConfig, readEnvironment } from "./lib/config.ts";
import { assembleServices } from "./lib/services.ts";
import { createDrainGate, drainThenClose } from "./lib/http/drain.ts";
import { createLogger } from "./lib/log.ts";
import { openStore } from "./lib/store/open.ts";
import { createObjectStorage } from "./lib/storage/open.ts";
import { createWebhookBoundary } from "./lib/webhooks/boundary.ts";
import { createAppJobWorker } from "./routes/job_items.ts";
import { SYSTEM_CLOCK } from "./lib/clock.ts";
import { DEFAULT_UPSTREAMS } from "./lib/upstreams.ts";

// In-flight requests get this long to finish after SIGTERM before we exit anyway.
const DRAIN_TIMEOUT_MS = 20_000;

async function main() {
  const { env, denied } = readEnvironment(Deno.env);
  let config;
  try {
    config = parseConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    Deno.exit(2);
  }
  const log = createLogger(config.LOG_LEVEL);
  if (denied.length > 0) log.warn("env access denied; using defaults", { variables: denied });
  // A promise some library left unawaited (a browser's event after its page closed, say) must not
  // take down every capture in flight: it is logged with its stack for an operator to report.
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    log.error("unhandled rejection", { error: event.reason });
  });
  const clock = SYSTEM_CLOCK;
  const store = await openStore(config, clock, log);
  // sharp when FFI allows it, else the wasm Worker pool; warmed before the first request.
  const exporter = await createImageExporter({ log });
  // The blockAds filter lists load in the background; captures with blockAds answer 503 until then.
  const adFilters = createAdFilters({
    urls: config.ADBLOCK_LIST_URLS,
    annoyanceUrls: config.ANNOYANCE_LIST_URLS,
    store,
    log,
    clock,
    fetch: globalThis.fetch,
  });
  void adFilters.start();
  // Recordings (mp4, webm, gif) are encoded by ffmpeg, probed on first use; without it they 503.
  const videoEncoders = createVideoEncoders({ ffmpegPath: config.FFMPEG_PATH });
  // Local Chromium first, BROWSER_WS_ENDPOINT behind it (or alone); started in the background,
  // and captures answer 503 while no backend can run.
  let capture;
  try {
    capture = createCaptureBackends({ config, log, adFilters, videoEncoders });
  } catch (error) {
    // EGRESS_PROXY_LISTEN cannot be bound: refuse to start rather than run remote captures open.
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(2);
  }
  void capture.start();
  // The S3_* bucket for job results and captures past the cache's bound, else the store.
  const objectStorage = createObjectStorage({ config, store, clock, log });
  // Webhooks leave through an egress proxy of their own, with the captures' address rules.
  const webhookBoundary = config.WEBHOOK_SECRET
    ? createWebhookBoundary({
      allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK,
      denyCidrs: config.EGRESS_DENY_CIDRS,
      log,
    })
    : undefined;
  const services = assembleServices({
    config,
    store,
    log,
    clock,
    fetch: globalThis.fetch,
    upstreams: DEFAULT_UPSTREAMS,
    exporter,
    capture,
    adFilters,
    videoEncoders,
    objectStorage,
    ...(webhookBoundary ? { webhookBoundary } : {}),
  });
  const app = createApp(services);
  // Any instance runs any job's items and webhooks, from the store's durable queue.
  const jobWorker = createAppJobWorker(services);
  jobWorker.start();

  const gate = createDrainGate(app.fetch, config.PUBLIC_BASE_URL);
  const server = Deno.serve({
    port: config.PORT,
    hostname: config.HOST,
    onListen: ({ hostname, port }) => log.info("listening", { hostname, port, store: store.kind }),
  }, gate.fetch);

  const shutdown = drainThenClose({
    gate,
    server,
    log,
    timeoutMs: DRAIN_TIMEOUT_MS,
    // In order: nothing new is fetched, captures already answered are written to the cache,
    // then the stores and encoders, then the browser (which also stops the egress proxy and
    // removes the profile).
    close: [
      // Job items in progress finish (or go back to the queue for another instance) first.
      () => jobWorker.close(),
      () => adFilters.close(),
      () => services.screenshots.writesSettled(),
      () => objectStorage.close(),
      () => store.close(),
      () => exporter.close(),
      () => capture.close(),
    ],
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, async () => {
      if (await shutdown(signal)) Deno.exit(0);
    });
  }
}

if (import.meta.main) await main();
