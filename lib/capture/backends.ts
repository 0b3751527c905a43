/**
 * Which capture backends an instance runs, in order: the local Chromium first when there is
 * one, the remote browsers of BROWSER_WS_ENDPOINT behind it (or alone, as on Deno Deploy).
 * Only "this backend cannot run" (a CaptureFailure of kind backend_unavailable) moves a capture
 * on to the next backend: a page that times out, is refused or fails to load would do the same
 * in any browser, so that failure is final.
 */
import type { VideoEncoders } from "../codecs/video_encoder.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { AdFilters } from "./filter_lists.ts";
import { type Resolver, resolveWithDns } from "../egress/address.ts";
import { findChromium } from "./local/browser.ts";
import { CHROMIUM_LOCAL, createChromiumCapturer } from "./local/capturer.ts";
import { CHROMIUM_REMOTE, createRemoteCapturer } from "./remote/capturer.ts";
import { instrumentBackend } from "./instrument.ts";
import { createFleetProxy } from "../egress/fleet_proxy.ts";
import type { Backoff } from "./remote/endpoint.ts";
import { CaptureFailure, type CaptureJob, type Capturer, type CaptureResult } from "./types.ts";

/** A Capturer that main.ts can warm up before the first request. */
export interface StartableCapturer extends Capturer {
  /** Launches / connects every backend; failures are logged and leave that backend "down". */
  start(): Promise<void>;
}

export interface CaptureBackendsOptions {
  config:
    & Pick<
      Config,
      | "CHROME_PATH"
      | "BROWSER_WS_ENDPOINT"
      | "CAPTURE_TIMEOUT_MS"
      | "ALLOW_PRIVATE_NETWORK"
      | "EGRESS_PROXY_LISTEN"
      | "EGRESS_PROXY_URL"
    >
    & Partial<Pick<Config, "EGRESS_DENY_CIDRS" | "CAPTURE_BYTE_BUDGET">>;
  log: Logger;
  /** DNS for both network boundaries; `Deno.resolveDns` by default. */
  resolver?: Resolver;
  /** Reconnection delays of the remote endpoints. */
  backoff?: Backoff;
  /** Whether auto-detection finds a local Chromium (test seam; CHROME_CANDIDATES by default). */
  localChromiumFound?: () => boolean;
  /** The filter lists behind blockAds (ADBLOCK_LIST_URLS), shared by every backend. */
  adFilters?: AdFilters;
  /** ffmpeg's encoders (FFMPEG_PATH), shared by every backend: recordings encode here. */
  videoEncoders?: VideoEncoders;
}

// The fleet proxy's TCP connect budget, as the local proxy's: below the default capture timeout.
const CONNECT_TIMEOUT_MS = 10_000;
// When no backend says how soon it may be back, a client may retry after this.
const DEFAULT_RETRY_S = 10;

/**
 * The backends the configuration asks for; nothing is launched or connected yet, except the
 * egress proxy's listener for remote browsers (EGRESS_PROXY_LISTEN), whose bind failure throws.
 */
export function createCaptureBackends(options: CaptureBackendsOptions): StartableCapturer {
  const { config, log, resolver } = options;
  const endpoints = config.BROWSER_WS_ENDPOINT ?? [];
  const localFound = options.localChromiumFound ?? (() => "path" in findChromium());
  const common = {
    timeoutMs: config.CAPTURE_TIMEOUT_MS,
    allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK,
    denyCidrs: config.EGRESS_DENY_CIDRS,
    resolver,
    log,
    adFilters: options.adFilters,
    videoEncoders: options.videoEncoders,
  };
  const backends: StartableCapturer[] = [];
  // An explicit CHROME_PATH is always honoured (a wrong one shows as "down" in /healthz); with
  // endpoints and no Chromium on this machine (Deno Deploy) a local backend could only fail.
  if (config.CHROME_PATH || endpoints.length === 0 || localFound()) {
    const local = createChromiumCapturer({
      ...common,
      chromePath: config.CHROME_PATH,
      byteBudget: config.CAPTURE_BYTE_BUDGET,
    });
    backends.push(instrumentBackend(local, CHROMIUM_LOCAL));
  }
  const { EGRESS_PROXY_LISTEN: listen, EGRESS_PROXY_URL: url } = config;
  if (url && endpoints.length === 0) {
    log.warn("EGRESS_PROXY_URL is set without BROWSER_WS_ENDPOINT: no listener is opened");
  }
  if (endpoints.length > 0) {
    const fleetProxy = listen && url
      ? createFleetProxy({
        listen,
        url,
        policy: {
          resolver: resolver ?? resolveWithDns,
          allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK,
          denyCidrs: config.EGRESS_DENY_CIDRS,
          connectTimeoutMs: Math.min(CONNECT_TIMEOUT_MS, config.CAPTURE_TIMEOUT_MS),
        },
        limits: { byteBudget: config.CAPTURE_BYTE_BUDGET },
        log,
      })
      : undefined;
    const remote = createRemoteCapturer({
      ...common,
      endpoints,
      backoff: options.backoff,
      byteBudget: config.CAPTURE_BYTE_BUDGET,
      fleetProxy,
    });
    backends.push(instrumentBackend(remote, CHROMIUM_REMOTE));
  }
  return chainCapturers(backends, log);
}

/** Tries `backends` in order; a single backend is returned as it is. */
export function chainCapturers(backends: StartableCapturer[], log: Logger): StartableCapturer {
  if (backends.length === 1) return backends[0];
  return {
    async start() {
      await Promise.all(backends.map((backend) => backend.start()));
    },
    status: () => backends.flatMap((backend) => backend.status()),
    // One advisory backend is enough for a capture to escape, so the weakest one is reported.
    boundary: () =>
      backends.some((backend) => backend.boundary?.() === "advisory") ? "advisory" : "enforced",
    async capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult> {
      const unavailable: CaptureFailure[] = [];
      for (const backend of backends) {
        try {
          return await backend.capture(job, signal);
        } catch (error) {
          if (!isUnavailable(error) || signal?.aborted) throw error;
          unavailable.push(error);
          log.info("capture backend unavailable; trying the next one", {
            backend: backend.status()[0]?.name,
            reason: error.detail.reason,
          });
        }
      }
      throw noBackend(unavailable);
    },
    async close() {
      await Promise.all(backends.map((backend) => backend.close()));
    },
  };
}

function isUnavailable(error: unknown): error is CaptureFailure & {
  detail: { kind: "backend_unavailable" };
} {
  return error instanceof CaptureFailure && error.detail.kind === "backend_unavailable";
}

/** Every backend unavailable: the soonest any of them may be back is the wait. */
function noBackend(unavailable: CaptureFailure[]): CaptureFailure {
  const waits = unavailable.flatMap((f) =>
    f.detail.kind === "backend_unavailable" && f.detail.retryAfterS > 0
      ? [f.detail.retryAfterS]
      : []
  );
  return new CaptureFailure({
    kind: "no_backend",
    retryAfterS: waits.length > 0 ? Math.min(...waits) : DEFAULT_RETRY_S,
    beforeWork: unavailable.every((f) => f.beforeWork),
  });
}
