/**
 * The "chromium-remote" capture backend: browsers of BROWSER_WS_ENDPOINT reached over CDP.
 * Captures are spread round robin over the connected endpoints; each runs in its own browser
 * context, closed afterwards. With EGRESS_PROXY_URL every context leaves through our egress
 * proxy with its own credentials; without it the request guard stands in (advisory only).
 */
import type { Browser, BrowserContext } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";
import type { Logger } from "../../log.ts";
import { type Resolver, resolveWithDns } from "../../egress/address.ts";
import type { Cidr } from "../../egress/cidr.ts";
import { emulateDevice, openCaptureContext, userAgentsOf } from "../page/context.ts";
import { failedCapture, pageFailed } from "../failures.ts";
import { type Backoff, createRemoteEndpoint } from "./endpoint.ts";
import type { VideoEncoders } from "../../codecs/video_encoder.ts";
import type { AdFilters } from "../filter_lists.ts";
import { renderPrepared, type TrafficCarrier } from "../page/prepare.ts";
import { createRequestGuard } from "../../egress/request_guard.ts";
import { createEgressProxy, type EgressSession } from "../../egress/proxy.ts";
import type { Dialer } from "../../egress/policy.ts";
import { FAVICON_BUDGET_MS } from "../page/favicon.ts";
import { enforceByteBudget } from "./byte_budget.ts";
import { closeOpenedTargets } from "../page/lockdown.ts";
import type { FleetProxy, FleetSession } from "../../egress/fleet_proxy.ts";
import { guardProxiedPage } from "./context_guard.ts";
import {
  type CaptureBackendStatus,
  CaptureFailure,
  type CaptureJob,
  type Capturer,
  type CaptureResult,
  type DeviceType,
} from "../types.ts";
import { traced } from "../../telemetry/trace.ts";

export const CHROMIUM_REMOTE = "chromium-remote";

// Closing a context is one round trip; a remote browser that does not answer is not waited for.
const CONTEXT_CLOSE_TIMEOUT_MS = 5_000;
// A backend without endpoints (or closed) has nothing to reconnect; a client may retry after this.
const NO_ENDPOINT_RETRY_S = 10;

/** The failure of a capture no remote browser can take now. */
function noRemote(retryAfterS: number): CaptureFailure {
  return new CaptureFailure({ kind: "backend_unavailable", reason: "no_remote", retryAfterS });
}

export interface RemoteCapturerOptions {
  /** BROWSER_WS_ENDPOINT, already split (lib/config.ts). */
  endpoints: string[];
  /** CAPTURE_TIMEOUT_MS: commit + DOMContentLoaded budget. */
  timeoutMs: number;
  /** ALLOW_PRIVATE_NETWORK: lets captures reach loopback and private addresses. */
  allowPrivateNetwork: boolean;
  /** DNS for the checks before and during navigation; `Deno.resolveDns` A + AAAA by default. */
  resolver?: Resolver;
  /** EGRESS_DENY_CIDRS. */
  denyCidrs?: readonly Cidr[];
  /** CAPTURE_BYTE_BUDGET: bytes the capture's page may download before it is cut off. */
  byteBudget?: number;
  log: Logger;
  /** Reconnection delays (tests shorten them). */
  backoff?: Backoff;
  /** The egress proxy's listener for remote browsers (EGRESS_PROXY_URL); owned from here on. */
  fleetProxy?: FleetProxy;
  /** The filter lists behind blockAds. */
  adFilters?: AdFilters;
  /** ffmpeg's encoders, for recordings (FFMPEG_PATH). */
  videoEncoders?: VideoEncoders;
  /** Test seam of the favicon's egress proxy (see EgressPolicy.dial); never set in production. */
  dial?: Dialer;
}

/** The Capturer plus `start()`, which connects every endpoint (failures only logged). */
export interface RemoteCapturer extends Capturer {
  start(): Promise<void>;
}

/** Builds the backend without connecting; endpoints connect on `start()` or first use. */
export function createRemoteCapturer(options: RemoteCapturerOptions): RemoteCapturer {
  const { log, timeoutMs, allowPrivateNetwork, fleetProxy } = options;
  const resolver = options.resolver ?? resolveWithDns;
  const endpoints = options.endpoints.map((url) =>
    createRemoteEndpoint(url, { log, backoff: options.backoff })
  );
  const userAgents = new WeakMap<Browser, Promise<Record<DeviceType, string>>>();
  const closings = new Set<Promise<unknown>>();
  const disposed = new WeakSet<BrowserContext>();
  // Our contexts on the (possibly shared) remote browsers: only their popups are ours to close.
  const ours = new Set<string>();
  const popupWatch = new WeakMap<Browser, Promise<unknown>>();
  const watchPopups = (browser: Browser) => {
    if (!popupWatch.has(browser)) {
      const isOurs = (id: string | undefined) => id !== undefined && ours.has(id);
      popupWatch.set(browser, closeOpenedTargets(browser, isOurs, log).catch(() => {}));
    }
    return popupWatch.get(browser);
  };
  let turn = 0;
  let closed = false;
  // The service loads each capture's favicon itself (the fleet never sees that load): through the
  // capture's session of the fleet's egress proxy, or, without one, through a session of a
  // loopback egress proxy with this backend's address rules.
  const iconEgress = createEgressProxy(
    {
      resolver,
      allowPrivateNetwork,
      denyCidrs: options.denyCidrs,
      dial: options.dial,
      connectTimeoutMs: FAVICON_BUDGET_MS,
    },
    log,
    { byteBudget: options.byteBudget },
  );

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
    throw noRemote(Math.min(...endpoints.map((e) => e.retryAfterSeconds())));
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
    if (context.id) ours.delete(context.id);
    const closing = withTimeout(context.close(), CONTEXT_CLOSE_TIMEOUT_MS, "context close")
      .catch(() => {})
      .finally(() => closings.delete(closing));
    closings.add(closing);
  };

  return {
    async start() {
      if (allowPrivateNetwork) {
        log.warn("ALLOW_PRIVATE_NETWORK is on: remote captures may reach private networks");
      } else if (!fleetProxy) {
        log.warn(
          "remote captures have an advisory network boundary: without EGRESS_PROXY_URL the " +
            "fleet's own network must keep pages from private addresses (docs/boundary.md, remote browsers)",
        );
      }
      await Promise.all(endpoints.map((e) => e.connect().catch(() => {})));
    },
    status(): CaptureBackendStatus[] {
      return endpoints.map((e) => ({ name: CHROMIUM_REMOTE, ...e.status() }));
    },
    boundary: () => fleetProxy ? "enforced" : "advisory",
    async capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult> {
      signal?.throwIfAborted();
      if (closed || endpoints.length === 0) throw noRemote(NO_ENDPOINT_RETRY_S);
      const guard = createRequestGuard({
        resolver,
        allowPrivateNetwork,
        denyCidrs: options.denyCidrs,
        log,
      });
      // Without the proxy a refused URL is answered here and never reaches the remote browser;
      // with it, the proxy refuses it like any other destination (as on the local backend).
      // An html document has no URL to check: what it references is judged request by request.
      if (!fleetProxy && job.html === undefined) {
        await guard.checkTarget(job.url).catch((error) => {
          throw pageFailed(error, { url: job.url, timeoutMs });
        });
      }
      const { browser, endpoint } = await pick();
      let session: FleetSession | undefined;
      let iconSession: EgressSession | undefined;
      log.debug("remote capture", { endpoint });
      let context: BrowserContext | undefined;
      // A caller that gives up closes the context, which ends the navigation at once.
      const onAbort = () => context && dispose(context);
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        await watchPopups(browser);
        session = fleetProxy?.openSession();
        const opened = await traced(
          "capture.context_acquire",
          { backend: CHROMIUM_REMOTE },
          () =>
            openCaptureContext(browser, {
              proxyServer: fleetProxy?.url,
              // WebSockets and WebTransport go too where only the request guard stands (it
              // never sees them); behind the egress proxy they are judged like the rest.
              lockdown: { uninterceptedChannels: !session && !allowPrivateNetwork },
            }),
        );
        context = opened.context;
        const { page } = opened;
        if (context.id) ours.add(context.id);
        signal?.throwIfAborted();
        await traced(
          "capture.options",
          { deviceType: job.deviceType },
          async () => emulateDevice(page, job, await agentsOf(browser)),
        );
        if (options.byteBudget) await enforceByteBudget(page, options.byteBudget, log);
        // One interception decides each request: the proxy guard's or the request guard's, with
        // the ad filter inside it.
        const proxied = session && fleetProxy && { session, localUrl: fleetProxy.localUrl };
        const carrier: TrafficCarrier = proxied
          ? {
            refusals: proxied.session,
            intercept: (page, blocked) =>
              guardProxiedPage(page, { credentials: proxied.session.credentials, log, blocked }),
            iconRoute: { proxyUrl: proxied.localUrl, credentials: proxied.session.credentials },
          }
          : {
            refusals: guard,
            intercept: (page, blocked) => guard.attach(page, { blocked }),
            iconRoute: { proxyUrl: (iconSession = iconEgress.openSession()).url },
          };
        const rendered = await renderPrepared({
          page,
          job,
          carrier,
          timeoutMs,
          adFilters: options.adFilters,
          videoEncoders: options.videoEncoders,
          log,
        });
        return { ...rendered, strategy: CHROMIUM_REMOTE };
      } catch (error) {
        signal?.throwIfAborted();
        throw failedCapture(error, {
          url: job.url,
          timeoutMs,
          backend: CHROMIUM_REMOTE,
          browserConnected: browser.connected,
          disconnected: "remote_lost",
          log,
        });
      } finally {
        signal?.removeEventListener("abort", onAbort);
        if (context) dispose(context);
        // Revoked at once: a request the closing context still makes gets 407, not a way out.
        session?.close();
        iconSession?.close();
      }
    },
    async close() {
      closed = true;
      await Promise.all([...closings]);
      await Promise.all(endpoints.map((e) => e.close()));
      fleetProxy?.close();
      iconEgress.close();
    },
  };
}
