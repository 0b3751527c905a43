/**
 * The "chromium-remote" capture backend: browsers of BROWSER_WS_ENDPOINT reached over CDP.
 * Captures are spread round robin over the connected endpoints; each runs in its own browser
 * context, closed afterwards; the request guard stands in for the egress proxy, which a remote
 * browser cannot use.
 */
import type { Browser, BrowserContext } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { type Resolver, resolveWithDns } from "../network/address.ts";
import { captureFailure } from "../errors.ts";
import { emulateDevice, userAgentsOf } from "../local/page_pool.ts";
import { type Backoff, createRemoteEndpoint } from "./endpoint.ts";
import { adRequestBlocker, requireEngine } from "../adblock.ts";
import type { AdFilters } from "../adblock_lists.ts";
import { render } from "../render.ts";
import { createRequestGuard } from "../network/request_guard.ts";
import type {
  CaptureBackendStatus,
  CaptureJob,
  Capturer,
  CaptureResult,
  DeviceType,
} from "../types.ts";

export const CHROMIUM_REMOTE = "chromium-remote";

// Closing a context is one round trip; a remote browser that does not answer is not waited for.
const CONTEXT_CLOSE_TIMEOUT_MS = 5_000;

export interface RemoteCapturerOptions {
  /** BROWSER_WS_ENDPOINT, already split (lib/config.ts). */
  endpoints: string[];
  /** CAPTURE_TIMEOUT_MS: commit + DOMContentLoaded budget. */
  timeoutMs: number;
  /** ALLOW_PRIVATE_NETWORK: lets captures reach loopback and private addresses. */
  allowPrivateNetwork: boolean;
  /** DNS for the checks before and during navigation; `Deno.resolveDns` A + AAAA by default. */
  resolver?: Resolver;
  log: Logger;
  /** Reconnection delays (tests shorten them). */
  backoff?: Backoff;
  /** The filter lists behind blockAds. */
  adFilters?: AdFilters;
}

/** The Capturer plus `start()`, which connects every endpoint (failures only logged). */
export interface RemoteCapturer extends Capturer {
  start(): Promise<void>;
}

/** Builds the backend without connecting; endpoints connect on `start()` or first use. */
export function createRemoteCapturer(options: RemoteCapturerOptions): RemoteCapturer {
  const { log, timeoutMs, allowPrivateNetwork } = options;
  const resolver = options.resolver ?? resolveWithDns;
  const endpoints = options.endpoints.map((url) =>
    createRemoteEndpoint(url, { log, backoff: options.backoff })
  );
  const userAgents = new WeakMap<Browser, Promise<Record<DeviceType, string>>>();
  const closings = new Set<Promise<unknown>>();
  const disposed = new WeakSet<BrowserContext>();
  let turn = 0;
  let closed = false;

  /** The next connected endpoint in turn; if none is, those not backing off are tried now. */
  const pick = async (): Promise<{ browser: Browser; endpoint: string }> => {
    const n = endpoints.length;
    const take = (index: number, browser: Browser) => {
      turn = (index + 1) % n;
      return { browser, endpoint: endpoints[index].label };
    };
    const order = endpoints.map((_, i) => (turn + i) % n);
    let found: number | undefined;
    for (const index of order) {
      if (endpoints[index].current()) found ??= index;
      // An idle endpoint (never started, or its backoff is over) starts connecting for later.
      else void endpoints[index].connect().catch(() => {});
    }
    if (found !== undefined) return take(found, endpoints[found].current()!);
    for (const index of order) {
      const browser = await endpoints[index].connect().catch(() => null);
      if (browser) return take(index, browser);
    }
    throw remoteUnavailable(Math.min(...endpoints.map((e) => e.retryAfterSeconds())));
  };

  const agentsOf = (browser: Browser) => {
    let agents = userAgents.get(browser);
    if (!agents) {
      agents = browser.userAgent().then(userAgentsOf);
      userAgents.set(browser, agents);
    }
    return agents;
  };

  const dispose = (context: BrowserContext) => {
    if (disposed.has(context)) return;
    disposed.add(context);
    const closing = withTimeout(context.close(), CONTEXT_CLOSE_TIMEOUT_MS, "context close")
      .catch(() => {})
      .finally(() => closings.delete(closing));
    closings.add(closing);
  };

  return {
    async start() {
      if (allowPrivateNetwork) {
        log.warn("ALLOW_PRIVATE_NETWORK is on: remote captures may reach private networks");
      }
      await Promise.all(endpoints.map((e) => e.connect().catch(() => {})));
    },
    status(): CaptureBackendStatus[] {
      return endpoints.map((e) => ({ name: CHROMIUM_REMOTE, ...e.status() }));
    },
    async capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult> {
      signal?.throwIfAborted();
      if (closed || endpoints.length === 0) throw remoteUnavailable(10);
      const guard = createRequestGuard({ resolver, allowPrivateNetwork, log });
      // A refused URL is answered here and never reaches the remote browser.
      await guard.checkTarget(job.url);
      const { browser, endpoint } = await pick();
      log.debug("remote capture", { endpoint });
      let context: BrowserContext | undefined;
      // A caller that gives up closes the context, which ends the navigation at once.
      const onAbort = () => context && dispose(context);
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        context = await browser.createBrowserContext({ downloadBehavior: { policy: "deny" } });
        signal?.throwIfAborted();
        const page = await context.newPage();
        // An alert() would block the page (and the screenshot) until someone answers it.
        page.on("dialog", (dialog) => void dialog.dismiss().catch(() => {}));
        await emulateDevice(page, job.deviceType, job.colorScheme, await agentsOf(browser));
        const engine = job.options?.blockAds ? requireEngine(options.adFilters) : null;
        // One interception decides each request: the guard's, with the ad filter inside it.
        await guard.attach(page, engine ? { blocked: adRequestBlocker(engine, page) } : {});
        const rendered = await render(page, {
          session: guard,
          url: job.url,
          timeoutMs,
          options: job.options,
          engine,
        });
        return { ...rendered, strategy: CHROMIUM_REMOTE };
      } catch (error) {
        signal?.throwIfAborted();
        const failure = !(error instanceof ApiError) && !browser.connected
          ? remoteLost()
          : captureFailure(error, {
            url: job.url,
            refusals: guard.refusals,
            timeoutMs,
            browserConnected: true,
          });
        log.info("capture failed", {
          backend: CHROMIUM_REMOTE,
          status: failure.status,
          code: failure.code,
          reason: error instanceof Error ? error.message : String(error),
        });
        throw failure;
      } finally {
        signal?.removeEventListener("abort", onAbort);
        if (context) dispose(context);
      }
    },
    async close() {
      closed = true;
      await Promise.all([...closings]);
      await Promise.all(endpoints.map((e) => e.close()));
    },
  };
}

/** 503 when no remote browser is connected or reachable. */
function remoteUnavailable(retryAfter: number): ApiError {
  return new ApiError(503, "upstream_unavailable", "No remote browser is reachable.", {
    hint: "The browsers of BROWSER_WS_ENDPOINT do not answer; the service keeps reconnecting. " +
      "Retry after Retry-After seconds.",
    headers: { "Retry-After": String(retryAfter) },
  });
}

/** 503 when the connection to the remote browser dropped during the capture. */
function remoteLost(): ApiError {
  return new ApiError(
    503,
    "upstream_unavailable",
    "The remote browser went away during the capture.",
    {
      hint: "The connection to the remote browser dropped; the service is reconnecting. " +
        "Retry after Retry-After seconds.",
      headers: { "Retry-After": "1" },
    },
  );
}
