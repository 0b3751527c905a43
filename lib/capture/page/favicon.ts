/**
 * The page's favicon, read by the capture itself so a client can draw it without fetching it
 * (a cross-origin image taints a canvas). The service loads it through the capture's egress proxy
 * session (the boundary: judged, connected by checked address, counted in the byte budget, cut
 * when the capture ends), as the page's browser would ask for it (its user agent and languages,
 * no cookies), from the moment the page has loaded, behind its settle and shot. Loading it in the
 * page instead would meet the page's CSP
 * and its memory cache (an icon the page already shows comes back empty); DevTools'
 * loadNetworkResource sends the headless browser's own user agent, which sites refuse.
 */
import type { Page } from "puppeteer-core";
import { type EgressRoute, getThroughProxy } from "../../egress/proxied_fetch.ts";
import type { Logger } from "../../log.ts";
import { traced } from "../../telemetry/trace.ts";
import { abortAfter } from "../../timeout.ts";
import { readPageMetadata } from "./metadata.ts";
import { urlPatterns } from "../request/blocking.ts";
import type { CaptureOptions } from "../request/options.ts";
import { iconDataUrl } from "./icon_bytes.ts";

/** Past this the favicon is left out: a slow icon host must not hold the capture. */
export const FAVICON_BUDGET_MS = 1_500;
// An .ico may hold a 256 px image beside the small ones: read that much, keep one image of it.
const MAX_DOWNLOAD_BYTES = 512 * 1024;
// What Chrome asks for when it loads an image.
const IMAGE_ACCEPT = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";

export interface FaviconRequest {
  /** The icon the page declares (metadata.ts), or null. */
  url: string | null;
  options: Pick<CaptureOptions, "blockResources" | "blockRequests">;
  /** The capture's egress proxy session. */
  route: EgressRoute;
  timeoutMs: number;
}

/** The icon as a data: URL, or why there is none (for the log). */
export type FaviconOutcome =
  | { data: string }
  | { data: null; reason: string };

/**
 * The favicon loads of one capture, by URL: the icon the page declares as soon as it has loaded
 * starts loading then (`early`), behind the page's settle, so the shot rarely waits for it; the
 * icon it declares once settled (`of`) reuses that load when it is the same, and loads anew when
 * the page changed it.
 */
export function faviconLoads(
  page: Page,
  base: Omit<FaviconRequest, "url">,
  log?: Logger,
) {
  const loads = new Map<string | null, Promise<FaviconOutcome>>();
  const load = (url: string | null) => {
    let outcome = loads.get(url);
    if (!outcome) {
      outcome = readFavicon(page, { ...base, url });
      loads.set(url, outcome);
    }
    return outcome;
  };
  return {
    /** Starts loading the icon the page declares now, without waiting for it. */
    early(): void {
      readPageMetadata(page).then((declared) => load(declared.favicon), () => {});
    },
    /**
     * The load of `url`, started now unless it already is; `take()` waits for it (once the page
     * is shot) and logs how long it waited, and why an icon is left out.
     */
    of(url: string | null) {
      const outcome = load(url);
      return {
        async take(): Promise<string | null> {
          const start = performance.now();
          const icon = await traced("capture.favicon_wait", {}, () => outcome);
          const waitedMs = Math.round((performance.now() - start) * 10) / 10;
          if (icon.data !== null) log?.debug("favicon kept", { waitedMs });
          else if (url) log?.debug("favicon left out", { reason: icon.reason, waitedMs });
          return icon.data;
        },
      };
    },
  };
}

/** The favicon as a data: URL, or why not; never throws and never outlives `timeoutMs`. */
export async function readFavicon(page: Page, request: FaviconRequest): Promise<FaviconOutcome> {
  const { url, options } = request;
  if (!url || !/^https?:/.test(url)) return { data: null, reason: "none declared" };
  // "Never requested at all": the job's own blocking covers the icon too.
  if (options.blockResources?.includes("image") || urlPatterns(options.blockRequests ?? [])(url)) {
    return { data: null, reason: "blocked by the request" };
  }
  using deadline = abortAfter(request.timeoutMs, new Error("no answer in time"));
  try {
    const headers = await headersOf(page);
    const answer = await getThroughProxy(url, {
      route: request.route,
      headers,
      maxBytes: MAX_DOWNLOAD_BYTES,
      signal: deadline.signal,
    });
    if (!answer.ok) return { data: null, reason: answer.reason };
    const data = iconDataUrl(answer.bytes);
    return data ? { data } : { data: null, reason: "not an image, or too large" };
  } catch (error) {
    return { data: null, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The page's own user agent and languages (its emulation included), as request headers. */
async function headersOf(page: Page): Promise<Record<string, string>> {
  const [userAgent, languages] = await page.evaluate(
    "[navigator.userAgent, [...navigator.languages]]",
  ) as [string, string[]];
  const acceptLanguage = languages.slice(0, 5)
    .map((language, i) => i === 0 ? language : `${language};q=${(10 - i) / 10}`).join(",");
  return {
    "user-agent": userAgent,
    accept: IMAGE_ACCEPT,
    ...(acceptLanguage ? { "accept-language": acceptLanguage } : {}),
  };
}
