/**
 * The page's network as the wait ladder sees it: requests in flight (for network quiet), the
 * main document's latest response, and the hosts the main frame navigated to.
 */
import type { Frame, HTTPRequest, HTTPResponse, Page } from "puppeteer-core";
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
    /** Resolves once the network is quiet (see QUIET_*): true, or at `deadline`: false. */
    async quiet(deadline: number): Promise<boolean> {
      // The common case: nothing left after load, so no idle period is added to the capture.
      if (inFlight === 0) return true;
      while (performance.now() < deadline) {
        const idle = performance.now() - lastChange;
        if (inFlight === 0 && idle >= QUIET_GRACE_MS) return true;
        if (inFlight <= QUIET_MAX_IN_FLIGHT && idle >= QUIET_MS) return true;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return false;
    },
    /** Whether something that changes the picture is still in flight (see idle). */
    painting(): boolean {
      return painted > 0;
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
      top.stop();
      page.off("request", onRequest);
      page.off("requestfinished", onDone);
      page.off("requestfailed", onFailed);
      page.off("response", onResponse);
    },
  };
  const counted = new WeakSet<HTTPRequest>();
  const paints = new WeakSet<HTTPRequest>();
  const top = topNavigations(page);
  const onRequest = (request: HTTPRequest) => {
    if (top.starts(request)) {
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
    if (top.has(request)) {
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
    if (top.has(request)) {
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
 * Which navigation requests are the top-level frame's (a redirect hop included). A request counts
 * only when its frame is positively the top one: no parent, and never reported as attached to one.
 * Under load puppeteer can report a sub-frame's navigation before it knows the frame (no frame at
 * all), or after the frame left its tree (no parent any more); taken for the top one, a refused
 * iframe's answer became the page's and failed the capture. A redirect to another site can swap
 * the main frame's object, so identity with page.mainFrame() is not required, and a hop counts
 * by the navigation it continues (its redirect chain), whatever frame it is reported on.
 */
function topNavigations(page: Page) {
  const subFrames = new WeakSet<Frame>();
  const known = new WeakSet<HTTPRequest>();
  const main = page.mainFrame();
  for (const frame of page.frames()) if (frame !== main) subFrames.add(frame);
  const onAttached = (frame: Frame) => subFrames.add(frame);
  page.on("frameattached", onAttached);
  const isTopFrame = (frame: Frame | null) =>
    frame !== null && !subFrames.has(frame) && !frame.parentFrame();
  return {
    /** Whether `request` (just sent) is a top-level navigation; remembers it if so. */
    starts(request: HTTPRequest): boolean {
      if (!request.isNavigationRequest()) return false;
      const first = request.redirectChain()[0];
      const top = first ? known.has(first) : isTopFrame(request.frame());
      if (top) known.add(request);
      return top;
    },
    /** Whether `request` was judged a top-level navigation when it was sent. */
    has(request: HTTPRequest): boolean {
      return known.has(request);
    },
    stop() {
      page.off("frameattached", onAttached);
    },
  };
}
