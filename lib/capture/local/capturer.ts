/**
 * The "chromium-local" capture backend: a warm local Chromium behind the egress proxy, a pool
 * of prepared contexts, and the wait ladder of render.ts.
 */
import type { Browser } from "puppeteer-core";
import type { Logger } from "../../log.ts";
import { type Resolver, resolveWithDns } from "../../egress/address.ts";
import { createBrowserHost } from "./browser.ts";
import { failedCapture } from "../failures.ts";
import type { Dialer } from "../../egress/policy.ts";
import { createEgressProxy, type EgressSession } from "../../egress/proxy.ts";
import { type ContextOpener, type ContextPool, createContextPool } from "./context_pool.ts";
import { runBoundarySelfTest, warnIfUntested } from "./boundary_probe.ts";
import type { VideoEncoders } from "../../codecs/video_encoder.ts";
import type { AdFilters } from "../filter_lists.ts";
import { renderPrepared } from "../page/prepare.ts";
import { closeOpenedTargets } from "../page/lockdown.ts";
import type { Cidr } from "../../egress/cidr.ts";
import {
  type CaptureBackendStatus,
  CaptureFailure,
  type CaptureJob,
  type Capturer,
  type CaptureResult,
} from "../types.ts";
import { traced } from "../../telemetry/trace.ts";

export const CHROMIUM_LOCAL = "chromium-local";

// Two captures run at once on two cores (bench/README.md); one spare covers a colour-scheme switch.
const DEFAULT_POOL_SIZE = 2;
// The proxy's TCP connect budget; below the default capture timeout so the reason is reported.
const CONNECT_TIMEOUT_MS = 10_000;
// Without a browser a launch is retried on the next capture; a client may try again after this.
const NO_BROWSER_RETRY_S = 10;

/** The failure of a capture this backend cannot run: no browser, or the backend is closed. */
function noBrowser(): CaptureFailure {
  return new CaptureFailure({
    kind: "backend_unavailable",
    reason: "no_browser",
    retryAfterS: NO_BROWSER_RETRY_S,
  });
}

export interface ChromiumCapturerOptions {
  /** CHROME_PATH; auto-detected when absent. */
  chromePath?: string;
  /** CAPTURE_TIMEOUT_MS: commit + DOMContentLoaded budget. */
  timeoutMs: number;
  /** ALLOW_PRIVATE_NETWORK: lets captures reach loopback and private addresses. */
  allowPrivateNetwork: boolean;
  /** DNS for the egress proxy; `Deno.resolveDns` A + AAAA by default. */
  resolver?: Resolver;
  log: Logger;
  /** Prepared contexts kept ready. */
  poolSize?: number;
  /** Test seam of the egress proxy (see EgressPolicy.dial); never set in production. */
  dial?: Dialer;
  /** Test seam: how capture contexts are opened (a browser that drops their proxy, say). */
  openContext?: ContextOpener;
  /** EGRESS_DENY_CIDRS. */
  denyCidrs?: readonly Cidr[];
  /** CAPTURE_BYTE_BUDGET: bytes one capture may download before its page is cut off. */
  byteBudget?: number;
  /** The filter lists behind blockAds. */
  adFilters?: AdFilters;
  /** ffmpeg's encoders, for recordings (FFMPEG_PATH). */
  videoEncoders?: VideoEncoders;
}

/** The Capturer plus the lifecycle hooks main.ts and the tests use. */
export interface ChromiumCapturer extends Capturer {
  /** Launches the browser now; failures are logged and leave the backend "down". */
  start(): Promise<void>;
  /** Process id of the running browser, if any (for diagnostics and crash tests). */
  browserPid(): number | undefined;
}

/** Builds the backend without launching anything; the browser starts on `start()` or first use. */
export function createChromiumCapturer(options: ChromiumCapturerOptions): ChromiumCapturer {
  const { log, timeoutMs } = options;
  const proxy = createEgressProxy(
    {
      resolver: options.resolver ?? resolveWithDns,
      allowPrivateNetwork: options.allowPrivateNetwork,
      dial: options.dial,
      denyCidrs: options.denyCidrs,
      connectTimeoutMs: Math.min(CONNECT_TIMEOUT_MS, timeoutMs),
    },
    log,
    { byteBudget: options.byteBudget },
  );
  // Browser-wide traffic (outside our contexts) goes through the same checks.
  let browserSession: EgressSession | null = null;
  const pools = new Map<Browser, Promise<ContextPool>>();
  const closePool = async (browser: Browser) => {
    const pool = pools.get(browser);
    pools.delete(browser);
    await pool?.then((p) => p.close(), () => {});
  };
  const host = createBrowserHost({
    chromePath: options.chromePath,
    proxyUrl: () => (browserSession ??= proxy.openSession()).url,
    log,
    async verify(browser) {
      warnIfUntested(await browser.version(), log);
      await traced(
        "capture.self_test",
        { backend: CHROMIUM_LOCAL },
        () => runBoundarySelfTest({ browser, log, openContext: options.openContext }),
      );
    },
    onBrowser(browser) {
      for (const old of [...pools.keys()]) if (!old.connected) void closePool(old);
      if (browser) poolFor(browser);
    },
  });
  const poolFor = (browser: Browser): Promise<ContextPool> => {
    let pool = pools.get(browser);
    if (!pool) {
      const size = options.poolSize ?? DEFAULT_POOL_SIZE;
      // Every context of this browser is a capture's: popups go through the proxy like the
      // page, but are closed at once so nothing renders or runs outside the captured page.
      pool = closeOpenedTargets(browser, () => true, log).then((unwatch) => {
        browser.once("disconnected", unwatch);
        return createContextPool({ browser, proxy, size, log, openContext: options.openContext });
      });
      pools.set(browser, pool);
    }
    return pool;
  };
  let closed = false;

  return {
    async start() {
      if (options.allowPrivateNetwork) {
        log.warn("ALLOW_PRIVATE_NETWORK is on: captures may reach loopback and private networks");
      }
      await host.get().catch(() => {});
    },
    browserPid: () => host.pid(),
    status(): CaptureBackendStatus[] {
      return [{ name: CHROMIUM_LOCAL, ...host.state(), sandbox: host.sandboxed() }];
    },
    async capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult> {
      signal?.throwIfAborted();
      if (closed) throw noBrowser();
      const browser = await host.get().catch(() => {
        throw noBrowser();
      });
      try {
        const pool = await poolFor(browser);
        const prepared = await traced(
          "capture.context_acquire",
          { backend: CHROMIUM_LOCAL },
          () => pool.acquire(job.deviceType, job.colorScheme),
        );
        const { page, session } = prepared;
        // A caller that gives up closes the context, which ends the navigation at once.
        const onAbort = () => void prepared.context.close().catch(() => {});
        signal?.addEventListener("abort", onAbort, { once: true });
        try {
          const rendered = await renderPrepared({
            page,
            job,
            // The egress proxy is this backend's boundary, so the ad filter intercepts alone; the
            // favicon goes through this capture's own proxy session, like its page.
            carrier: { refusals: session, iconRoute: { proxyUrl: session.url } },
            timeoutMs,
            adFilters: options.adFilters,
            videoEncoders: options.videoEncoders,
            log,
          });
          return { ...rendered, strategy: CHROMIUM_LOCAL };
        } finally {
          signal?.removeEventListener("abort", onAbort);
          pool.release(prepared);
        }
      } catch (error) {
        signal?.throwIfAborted();
        throw failedCapture(error, {
          url: job.url,
          timeoutMs,
          backend: CHROMIUM_LOCAL,
          browserConnected: browser.connected,
          log,
        });
      }
    },
    async close() {
      closed = true;
      const closing = [...pools.keys()].map(closePool);
      // Closing the browser also ends any context close that would otherwise hang.
      await host.close();
      await Promise.all(closing);
      proxy.close();
      browserSession = null;
    },
  };
}
