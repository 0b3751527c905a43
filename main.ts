import { createApp } from "./app.ts";
import { createAdFilters } from "./lib/capture/adblock_lists.ts";
import { createCaptureBackends } from "./lib/capture/backends.ts";
import { createImageExporter } from "./lib/codecs/exporter.ts";
import { CONFIG_VARIABLES, ConfigError, parseConfig } from "./lib/config.ts";
import { assembleServices } from "./lib/http/app_env.ts";
import { createDrainGate } from "./lib/http/drain.ts";
import { createLogger } from "./lib/log.ts";
import { openStore } from "./lib/store/open.ts";
import { SYSTEM_CLOCK } from "./lib/store/store.ts";
import { DEFAULT_UPSTREAMS } from "./lib/upstreams.ts";

// In-flight requests get this long to finish after SIGTERM before we exit anyway.
const DRAIN_TIMEOUT_MS = 20_000;

async function main() {
  const { env, denied } = readEnvironment();
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
  const clock = SYSTEM_CLOCK;
  const store = await openStore(config, clock, log);
  // sharp when FFI allows it, else the wasm Worker pool; warmed before the first request.
  const exporter = await createImageExporter({ log });
  // The blockAds filter lists load in the background; captures with blockAds answer 503 until then.
  const adFilters = createAdFilters({
    urls: config.ADBLOCK_LIST_URLS,
    store,
    log,
    clock,
    fetch: globalThis.fetch,
  });
  void adFilters.start();
  // Local Chromium first, BROWSER_WS_ENDPOINT behind it (or alone); started in the background,
  // and captures answer 503 while no backend can run.
  let capture;
  try {
    capture = createCaptureBackends({ config, log, adFilters });
  } catch (error) {
    // EGRESS_PROXY_LISTEN cannot be bound: refuse to start rather than run remote captures open.
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(2);
  }
  void capture.start();
  const app = createApp(assembleServices({
    config,
    store,
    log,
    clock,
    fetch: globalThis.fetch,
    upstreams: DEFAULT_UPSTREAMS,
    exporter,
    capture,
    adFilters,
  }));

  const gate = createDrainGate(app.fetch, config.PUBLIC_BASE_URL);
  const server = Deno.serve({
    port: config.PORT,
    hostname: config.HOST,
    onListen: ({ hostname, port }) => log.info("listening", { hostname, port, store: store.kind }),
  }, gate.fetch);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal, drainTimeoutMs: DRAIN_TIMEOUT_MS });
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    // Uploads in progress must arrive before the listener closes (see lib/http/drain.ts).
    if (!await gate.closeGate(DRAIN_TIMEOUT_MS)) log.warn("uploads still arriving at the bound");
    const drained = await Promise.race([
      server.shutdown().then(() => true),
      new Promise<false>((resolve) =>
        setTimeout(resolve, Math.max(0, deadline - Date.now()), false)
      ),
    ]);
    if (!drained) log.warn("drain timed out; closing with requests in flight");
    adFilters.close();
    await store.close();
    await exporter.close();
    await capture.close(); // kills Chromium, stops the egress proxy, removes the profile
    log.info("stopped");
    Deno.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => void shutdown(signal));
  }
}

/** The environment, or (without full --allow-env) each variable we may read; denied ones are unset. */
function readEnvironment(): { env: Record<string, string>; denied: string[] } {
  try {
    return { env: Deno.env.toObject(), denied: [] };
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
  }
  const env: Record<string, string> = {};
  const denied: string[] = [];
  for (const name of CONFIG_VARIABLES) {
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    } catch {
      denied.push(name);
    }
  }
  return { env, denied };
}

if (import.meta.main) await main();
