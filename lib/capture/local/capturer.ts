/**
 * The "chromium-local" capture backend: a warm local Chromium behind the egress proxy, a pool
 * of prepared contexts, and the wait ladder of render.ts.
 */
import type { Browser } from "puppeteer-core";
import type { Logger } from "../../log.ts";
import { type Resolver, resolveWithDns } from "../../egress/address.ts";
import { createBrowserHost } from "./browser.ts";
import { browserUnavailable, captureFailure } from "../page/failures.ts";
import type { Dialer } from "../../egress/policy.ts";
import { createEgressProxy, type EgressSession } from "../../egress/proxy.ts";
import { type ContextOpener, createPagePool, type PagePool } from "./context_pool.ts";
import { runBoundarySelfTest, warnIfUntested } from "./self_test.ts";
import { adRequestBlocker, interceptRequests, requireEngine } from "../page/adblock.ts";
import type { AdFilters } from "../page/adblock_lists.ts";
import { render } from "../page/render.ts";
import { redactUrls } from "../request/log_target.ts";
import { closeOpenedTargets } from "../page/lockdown.ts";
import type { Cidr } from "../../cidr.ts";
import type { CaptureBackendStatus, CaptureJob, Capturer, CaptureResult } from "../types.ts";
import { traced } from "../../telemetry/trace.ts";

export const CHROMIUM_LOCAL = "chromium-local";

// Two captures run at once on two cores (README, Performance); one spare covers a colour-scheme switch.
const DEFAULT_POOL_SIZE = 2;
// The proxy's TCP connect budget; below the default capture timeout so the reason is reported.
const CONNECT_TIMEOUT_MS = 10_000;

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
  const pools = new Map<Browser, Promise<PagePool>>();
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
  const poolFor = (browser: Browser): Promise<PagePool> => {
    let pool = pools.get(browser);
    if (!pool) {
      const size = options.poolSize ?? DEFAULT_POOL_SIZE;
      // Every context of this browser is a capture's: popups go through the proxy like the
      // page, but are closed at once so nothing renders or runs outside the captured page.
      pool = closeOpenedTargets(browser, () => true, log).then((unwatch) => {
        browser.once("disconnected", unwatch);
        return createPagePool({ browser, proxy, size, log, openContext: options.openContext });
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
      if (closed) throw browserUnavailable();
      const browser = await host.get().catch(() => {
        throw browserUnavailable();
      });
      try {
        const pool = await poolFor(browser);
        const slot = await traced(
          "capture.context_acquire",
          { backend: CHROMIUM_LOCAL },
          () => pool.acquire(job.deviceType, job.colorScheme),
        );
        // A caller that gives up closes the context, which ends the navigation at once.
        const onAbort = () => void slot.context.close().catch(() => {});
        signal?.addEventListener("abort", onAbort, { once: true });
        try {
          const engine = job.options?.blockAds ? requireEngine(options.adFilters) : null;
          // The egress proxy is this backend's boundary, so the ad filter intercepts alone.
          if (engine) await interceptRequests(slot.page, adRequestBlocker(engine, slot.page));
          const rendered = await render(slot.page, {
            session: slot.session,
            url: job.url,
            timeoutMs,
            options: job.options,
            engine,
            log,
          });
          return { ...rendered, strategy: CHROMIUM_LOCAL };
        } finally {
          signal?.removeEventListener("abort", onAbort);
          pool.release(slot);
        }
      } catch (error) {
        signal?.throwIfAborted();
        const failure = captureFailure(error, {
          url: job.url,
          timeoutMs,
          browserConnected: browser.connected,
        });
        log.info("capture failed", {
          status: failure.status,
          code: failure.code,
          reason: redactUrls(error instanceof Error ? error.message : String(error)),
          ...failure.logDetail,
        });
        throw failure;
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
