/**
 * The page's network as the wait ladder sees it: requests in flight (for network quiet), the
 * main document's latest response, and the hosts the main frame navigated to.
 */
import type { HTTPRequest, HTTPResponse, Page } from "puppeteer-core";
import { unbracket } from "../../egress/address.ts";

// Network quiet: nothing in flight for a moment (a response often starts the next request)...
const QUIET_GRACE_MS = 50;
// ...or at most this many for longer (long polls and streams never end).
const QUIET_MAX_IN_FLIGHT = 2;
const QUIET_MS = 500;

// What a page shows changes when these arrive; media, event streams and beacons run on.
const PAINTED_TYPES = new Set([
  "document",
  "stylesheet",
  "script",
  "image",
  "font",
  "fetch",
  "xhr",
]);

/** What trackNetwork returns. */
export type NetworkTracker = ReturnType<typeof trackNetwork>;

/**
 * Counts the page's requests in flight, and records the latest main-document response and every
 * host the main frame navigated to, starting with `url`'s.
 */
export function trackNetwork(page: Page, url: string) {
  let inFlight = 0;
  // Of those, the ones that change what is painted once they arrive (see PAINTED_TYPES).
  let painted = 0;
  let lastChange = performance.now();
  const state = {
    mainResponse: null as HTTPResponse | null,
    navigationHosts: new Set([hostOf(url)]),
    /** Whether a main-frame navigation request (a redirect hop included) has failed. */
    navigationFailed: false,
    /** Resolves once the network is quiet (see QUIET_*), or at `deadline`. */
    async quiet(deadline: number): Promise<void> {
      // The common case: nothing left after load, so no idle period is added to the capture.
      if (inFlight === 0) return;
      while (performance.now() < deadline) {
        const idle = performance.now() - lastChange;
        if (inFlight === 0 && idle >= QUIET_GRACE_MS) return;
        if (inFlight <= QUIET_MAX_IN_FLIGHT && idle >= QUIET_MS) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    /**
     * Resolves once no document, style, script, image, font or fetched data is in flight (a
     * skeleton waiting for its data, a late font), or at `deadline`; streams and media do not
     * count, a long poll costs the deadline. Whether there was anything to wait for.
     */
    async idle(deadline: number): Promise<boolean> {
      if (painted === 0) return false;
      while (performance.now() < deadline) {
        if (painted === 0 && performance.now() - lastChange >= QUIET_GRACE_MS) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return true;
    },
    stop() {
      page.off("request", onRequest);
      page.off("requestfinished", onDone);
      page.off("requestfailed", onFailed);
      page.off("response", onResponse);
    },
  };
  const counted = new WeakSet<HTTPRequest>();
  const paints = new WeakSet<HTTPRequest>();
  const onRequest = (request: HTTPRequest) => {
    if (isTopNavigation(request)) {
      state.navigationHosts.add(hostOf(request.url()));
    }
    // The favicon never shows in a screenshot; waiting for it only adds latency.
    if (request.resourceType() === "other" && request.url().endsWith("/favicon.ico")) return;
    counted.add(request);
    inFlight++;
    if (PAINTED_TYPES.has(request.resourceType())) {
      paints.add(request);
      painted++;
    }
    lastChange = performance.now();
  };
  const onFailed = (request: HTTPRequest) => {
    if (isTopNavigation(request)) {
      state.navigationFailed = true;
    }
    onDone(request);
  };
  const onDone = (request: HTTPRequest) => {
    if (!counted.delete(request)) return;
    inFlight--;
    if (paints.delete(request)) painted--;
    lastChange = performance.now();
  };
  const onResponse = (response: HTTPResponse) => {
    const request = response.request();
    if (isTopNavigation(request)) {
      state.mainResponse = response;
    }
  };
  page.on("request", onRequest);
  page.on("requestfinished", onDone);
  page.on("requestfailed", onFailed);
  page.on("response", onResponse);
  return state;
}

function hostOf(url: string): string {
  try {
    return unbracket(new URL(url).hostname);
  } catch {
    return "";
  }
}

/**
 * A navigation of the top-level frame (a redirect hop included). Judged by the frame having no
 * parent rather than by identity with page.mainFrame(): a redirect to another site can swap the
 * main frame's process, and its hop may be reported against a frame object not (yet) the main one.
 */
function isTopNavigation(request: HTTPRequest): boolean {
  return request.isNavigationRequest() && !request.frame()?.parentFrame();
}
