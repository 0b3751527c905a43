/**
 * blockResources and blockRequests in the page: a request of a listed resource type, or whose URL
 * matches a listed pattern, is dropped before it leaves the browser. It is one more test inside
 * the interception blockAds already uses (adblock.ts, filtersFor), never a second interceptor.
 */
import type { HTTPRequest, Page } from "puppeteer-core";
import { urlPatterns } from "../request/blocking.ts";
import type { CaptureOptions } from "../request/options.ts";

/**
 * The job's own blocker, or undefined when it blocks nothing: for a dropped request, which
 * option dropped it (the report's reason), else null.
 */
export function optionsRequestBlocker(
  page: Page,
  options: Pick<CaptureOptions, "blockResources" | "blockRequests">,
): ((request: HTTPRequest) => "resource_type" | "blocked_by_request" | null) | undefined {
  const types = new Set<string>(options.blockResources ?? []);
  const patterns = options.blockRequests ?? [];
  if (types.size === 0 && patterns.length === 0) return undefined;
  const matches = urlPatterns(patterns);
  return (request) => {
    // The page the user asked for (redirect hops included) is never dropped.
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) return null;
    if (types.has(request.resourceType())) return "resource_type";
    return matches(request.url()) ? "blocked_by_request" : null;
  };
}

// Request interception never sees WebSockets or WebTransport, so blockResources "websocket" takes
// their constructors away before the page's own scripts run, in the page and in its frames.
const NO_SOCKETS_SCRIPT = `(() => {
  const refuse = function () {
    throw new DOMException("Blocked by the capture's blockResources", "NotAllowedError");
  };
  for (const name of ["WebSocket", "WebTransport"]) {
    const d = Object.getOwnPropertyDescriptor(globalThis, name);
    if (d && d.configurable) Object.defineProperty(globalThis, name, { value: refuse });
  }
})();`;

/** blockResources "websocket": the page cannot open a WebSocket or WebTransport at all. */
export async function blockSockets(page: Page, options: CaptureOptions = {}): Promise<void> {
  if (!options.blockResources?.includes("websocket")) return;
  await page.evaluateOnNewDocument(NO_SOCKETS_SCRIPT);
}
