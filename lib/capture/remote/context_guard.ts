/**
 * A remote capture behind the egress proxy (EGRESS_PROXY_URL): the context's traffic leaves
 * only through the proxy, which judges every destination. What stays here is the proxy's
 * credentials (answered through CDP's Fetch auth handling, for the page, its frames and its
 * workers) and a lock on the main frame's navigation.
 */
import type { HTTPRequest, Page } from "puppeteer-core";
import type { Logger } from "../../log.ts";
import type { ProxyCredentials } from "../../egress/proxy_auth.ts";

/**
 * Sets up `page` (the capture's only page in `context`): proxy credentials and, once the first
 * document has committed, every further navigation of the main frame refused (meta refresh, a
 * script's `location` change, a form post): the screenshot is of the checked URL or of nothing.
 * WebRTC and new windows are taken away by lockDownPage and closeOpenedTargets, as for every
 * capture.
 */
export async function guardProxiedPage(
  page: Page,
  options: {
    credentials: ProxyCredentials;
    log: Logger;
    /** Requests to drop besides navigations away (blockAds). */
    blocked?: (request: HTTPRequest) => boolean;
  },
): Promise<void> {
  const { log } = options;
  const blocked = (request: HTTPRequest) => {
    try {
      return options.blocked?.(request) ?? false;
    } catch {
      return false; // A filter that throws must not stall the page's request.
    }
  };
  let committed = false;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame() && frame.url() !== "about:blank") committed = true;
  });
  const decide = (request: HTTPRequest) => {
    const away = committed && request.isNavigationRequest() &&
      request.frame() === page.mainFrame();
    if (away) log.debug("remote capture navigated away; refused");
    // "aborted" drops the navigation without an error page, so the checked document stays.
    // The page may be gone by now (capture over, context closed): nothing left to decide.
    const decision = away
      ? request.abort("aborted")
      : blocked(request)
      ? request.abort("blockedbyclient")
      : request.continue();
    void decision.catch(() => {});
  };
  page.on("request", decide);
  await Promise.all([
    page.authenticate(options.credentials),
    page.setRequestInterception(true),
  ]);
}
