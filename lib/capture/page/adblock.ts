/**
 * blockAds in the page: the filter engine (lib/capture/filter_lists.ts) decides which requests
 * never leave the browser and which elements are hidden before the shot.
 */
import { type FiltersEngine, Request as FilterRequest } from "@ghostery/adblocker";
import type { HTTPRequest, Page } from "puppeteer-core";
import { PageFailure } from "./page_failure.ts";
import type { AdFilters } from "../filter_lists.ts";
import type { CaptureOptions } from "../request/options.ts";
import { optionsRequestBlocker } from "./request_blocking.ts";
import type { BlockReason } from "../report.ts";

/** Decides whether one request of the page is dropped. */
export type RequestBlocker = (request: HTTPRequest) => boolean;

/** The loaded annoyance engine (hideAnnoyances), or the failure that says none is. */
export function requireAnnoyances(filters: AdFilters | undefined): FiltersEngine {
  const engine = filters?.annoyances();
  if (!engine) throw new PageFailure({ kind: "filters_unavailable", lists: "annoyances" });
  return engine;
}

/** The loaded engine, or the failure that says none is. */
export function requireEngine(filters: AdFilters | undefined): FiltersEngine {
  const engine = filters?.engine();
  if (!engine) throw new PageFailure({ kind: "filters_unavailable", lists: "ads" });
  return engine;
}

/** Which of the job's blockers dropped a request (the report's reason), if one did. */
export type BlockedBy = (request: HTTPRequest) => BlockReason | undefined;

/**
 * What blockAds, hideAnnoyances, blockResources and blockRequests need for one capture: the ad
 * engine (it hides ad slots before the shot), the request blocker for the page's interceptor (ads,
 * resource types and URL patterns in one test), and the annoyance engine (its element rules hide
 * chat widgets and pop-ups); each absent when the job did not ask for it, a PageFailure when the
 * job asked but its lists are not loaded. `blockedBy` names the blocker of each dropped request,
 * for the capture report. Both backends wire the filters through here.
 */
export function filtersFor(
  page: Page,
  request: { options?: CaptureOptions; filters?: AdFilters },
): {
  engine: FiltersEngine | null;
  blocked?: RequestBlocker;
  annoyances: FiltersEngine | null;
  blockedBy: BlockedBy;
} {
  const { options = {}, filters } = request;
  const annoyances = options.hideAnnoyances ? requireAnnoyances(filters) : null;
  const reasons = new WeakMap<HTTPRequest, BlockReason>();
  const blockedBy: BlockedBy = (r) => reasons.get(r);
  // blockResources and blockRequests share the one interception (request_blocking.ts).
  const own = optionsRequestBlocker(page, options);
  const engine = options.blockAds ? requireEngine(filters) : null;
  const ads = engine ? adRequestBlocker(engine, page) : undefined;
  if (!own && !ads) return { engine, annoyances, blockedBy };
  const blocked: RequestBlocker = (r) => {
    const reason = own?.(r) || (ads?.(r) ? "ads" : null);
    if (!reason) return false;
    reasons.set(r, reason);
    return true;
  };
  return { engine, blocked, annoyances, blockedBy };
}

/**
 * Drops the ad and tracker requests the engine matches. The page's own document is never
 * dropped: the user asked for that page.
 */
export function adRequestBlocker(engine: FiltersEngine, page: Page): RequestBlocker {
  return (request) => {
    const frame = request.frame();
    if (request.isNavigationRequest() && frame === page.mainFrame()) return false;
    const { match } = engine.match(FilterRequest.fromRawDetails({
      url: request.url(),
      sourceUrl: frame?.url() || page.url(),
      type: request.resourceType(),
    }));
    return match;
  };
}

/**
 * Request interception for a page that has no other interceptor (the local backend: its
 * boundary is the egress proxy). The remote backend passes the blocker to its request guard
 * instead, since one request can be decided only once.
 */
export async function interceptRequests(page: Page, blocked: RequestBlocker): Promise<void> {
  page.on("request", (request) => {
    let drop = false;
    try {
      drop = blocked(request);
    } catch {
      // A URL the engine cannot parse is not an ad it knows.
    }
    // The page may be gone by now (capture over, context closed): nothing left to decide.
    void (drop ? request.abort("blockedbyclient") : request.continue()).catch(() => {});
  });
  await page.setRequestInterception(true);
}

// Runs in the page: the class names, ids and link targets the engine's element rules key on
// (bounded, so a huge DOM cannot make a huge message).
const DOM_FEATURES_SCRIPT = `(() => {
  const classes = new Set(), ids = new Set(), hrefs = new Set();
  const elements = document.querySelectorAll("[class], [id], a[href]");
  for (let i = 0; i < elements.length && i < 20000; i++) {
    const el = elements[i];
    if (el.id) ids.add(el.id);
    for (const name of el.classList) classes.add(name);
    if (el.tagName === "A" && el.href) hrefs.add(el.href);
  }
  return { classes: [...classes], ids: [...ids], hrefs: [...hrefs].slice(0, 5000) };
})()`;

/** The engine's element-hiding stylesheet for the page as it stands (main frame). */
export async function adHidingCss(engine: FiltersEngine, page: Page): Promise<string> {
  const features = await page.evaluate(DOM_FEATURES_SCRIPT) as {
    classes: string[];
    ids: string[];
    hrefs: string[];
  };
  const url = page.url();
  let hostname = "";
  try {
    hostname = new URL(url).hostname;
  } catch {
    return "";
  }
  const { styles } = engine.getCosmeticsFilters({
    url,
    hostname,
    domain: hostname,
    ...features,
    getBaseRules: true,
    getInjectionRules: false,
    getExtendedRules: false,
    getRulesFromDOM: true,
    getRulesFromHostname: true,
  });
  return styles;
}
