/**
 * The advisory network boundary for remote browsers that do not use our egress proxy (no
 * EGRESS_PROXY_URL). The capture's URL is resolved and judged before the remote browser is asked
 * to load it; then, with request interception, every request of the page (top document, redirect
 * hops, subresources, frames, fetch and XHR, worker fetches, beacons) is judged the same way and
 * aborted when forbidden, before it leaves the remote browser. What this cannot see (WebSockets,
 * WebRTC, the remote browser's own DNS lookup...) is listed in docs/boundary.md ("The network
 * boundary on remote browsers"): the fleet's network must enforce the same boundary.
 */
import type { HTTPRequest, Page } from "puppeteer-core";
import type { Logger } from "../log.ts";
import type { Resolver } from "./address.ts";
import type { Cidr } from "./cidr.ts";
import { checkDestination, type Checked, type EgressPolicy } from "./policy.ts";
import { type EgressRefusal, RefusedDestination } from "./types.ts";
import { METRICS } from "../telemetry/metrics.ts";

export interface RequestGuard {
  /** Requests refused so far, oldest first (read by the error mapping). */
  readonly refusals: readonly EgressRefusal[];
  /** Judges the capture's own URL before navigation; throws the API error of a refusal. */
  checkTarget(url: string): Promise<void>;
  /**
   * Intercepts every request of `page`: allowed ones continue, forbidden ones are aborted, and
   * so are those `blocked` matches (blockAds), which never need a lookup.
   */
  attach(page: Page, options?: { blocked?: (request: HTTPRequest) => boolean }): Promise<void>;
}

export interface RequestGuardOptions {
  resolver: Resolver;
  /** ALLOW_PRIVATE_NETWORK: nothing to enforce, so no lookups and no interception. */
  allowPrivateNetwork: boolean;
  /** EGRESS_DENY_CIDRS. */
  denyCidrs?: readonly Cidr[];
  log: Logger;
}

// These never reach the network: nothing to judge.
const LOCAL_SCHEMES = new Set(["data:", "blob:", "about:"]);
const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

/** A guard for one capture: lookups are shared by the page's requests to the same host. */
export function createRequestGuard(options: RequestGuardOptions): RequestGuard {
  const { log, allowPrivateNetwork } = options;
  // The guard never connects anywhere: only the resolver and the address rules are used.
  const policy: EgressPolicy = {
    resolver: options.resolver,
    allowPrivateNetwork,
    denyCidrs: options.denyCidrs,
    connectTimeoutMs: 0,
  };
  const refusals: EgressRefusal[] = [];
  const verdicts = new Map<string, Promise<Checked>>();

  /** The verdict for a URL; "local" for schemes that stay inside the browser. */
  const judge = (raw: string): Promise<Checked> | "local" | "refuse" => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return "refuse";
    }
    if (LOCAL_SCHEMES.has(url.protocol)) return "local";
    // Anything but http(s) (file:, ftp:, chrome:...) has no business in a capture.
    const defaultPort = DEFAULT_PORTS[url.protocol];
    if (!defaultPort || !url.hostname) return "refuse";
    const port = Number(url.port || defaultPort);
    const key = `${url.hostname}:${port}`;
    let verdict = verdicts.get(key);
    if (!verdict) {
      verdict = checkDestination(url.hostname, port, policy);
      verdicts.set(key, verdict);
    }
    return verdict;
  };

  const refuse = (refusal: EgressRefusal) => {
    refusals.push(refusal);
    METRICS.egressRefusals.inc({ reason: refusal.kind });
    log.debug("remote request refused", { ...refusal });
  };

  const decide = async (request: HTTPRequest, blocked?: (request: HTTPRequest) => boolean) => {
    const verdict = allowPrivateNetwork ? "local" : judge(request.url());
    let allowed: boolean;
    if (safely(blocked, request)) allowed = false;
    else if (verdict === "local") allowed = true;
    else if (verdict === "refuse") allowed = false;
    else {
      const checked = await verdict;
      if (!checked.ok) refuse(checked.refusal);
      allowed = checked.ok;
    }
    // The page may be gone by now (capture over, context closed): nothing left to decide.
    await (allowed ? request.continue() : request.abort("blockedbyclient")).catch(() => {});
  };

  return {
    refusals,
    async checkTarget(url) {
      if (allowPrivateNetwork) return;
      const verdict = judge(url);
      if (verdict === "local" || verdict === "refuse") return; // parseTargetUrl allows only http(s)
      const checked = await verdict;
      if (checked.ok) return;
      refuse(checked.refusal);
      throw new RefusedDestination(checked.refusal);
    },
    async attach(page, { blocked } = {}) {
      if (allowPrivateNetwork && !blocked) return;
      if (!allowPrivateNetwork) {
        // A service worker would answer the page's requests out of sight of the interception.
        // (Interception never sees WebSocket, WebTransport or WebRTC either: the capturer takes
        // those from the page with lockDownPage.)
        await page.setBypassServiceWorker(true);
      }
      page.on("request", (request) => void decide(request, blocked));
      await page.setRequestInterception(true);
    },
  };
}

/** A blocker that throws (a URL its parser rejects) blocks nothing. */
function safely(blocked: ((request: HTTPRequest) => boolean) | undefined, request: HTTPRequest) {
  try {
    return blocked?.(request) ?? false;
  } catch {
    return false;
  }
}
