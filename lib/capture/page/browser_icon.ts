/**
 * The browser's own favicon request, stopped before it leaves. Full Chrome (`--headless=new`)
 * fetches a page's icon after its load event, as a tab would: the declared `icon` (or `shortcut
 * icon`), else the origin's /favicon.ico. The service loads the icon itself (favicon.ts), so
 * without this every icon went out twice, and an endless one was read by both. The browser's
 * load cannot stand in for the service's: it starts only after the load event (a page that never
 * finishes loading never gets one), picks its own icon (not the one a title bar wants, and
 * /favicon.ico for a page that declares only an apple-touch-icon), and sends the headless user
 * agent, not the capture's. The screenshot never shows it.
 *
 * Its own CDP session's Fetch interception, limited to requests of type Other (the favicon's
 * type; prefetches, beacons and the page's images have their own); it chains with any other
 * interception of the page and lets every Other request that is not an image through.
 */
import type { CDPSession, Page } from "puppeteer-core";

interface PausedRequest {
  requestId: string;
  resourceType: string;
  request: { headers: Record<string, string> };
}

/** Whether a paused request is the browser's icon fetch: type Other, asking for an image. */
export function isBrowserIconRequest(paused: PausedRequest): boolean {
  if (paused.resourceType !== "Other") return false;
  const accept = Object.entries(paused.request.headers)
    .find(([name]) => name.toLowerCase() === "accept")?.[1] ?? "";
  return accept.startsWith("image/");
}

/** From now on the page's browser never fetches its favicon; lasts as long as the page. */
export async function stopBrowserIconFetch(page: Page): Promise<void> {
  const session: CDPSession = await page.createCDPSession();
  session.on("Fetch.requestPaused", (paused: PausedRequest) => {
    const answer = isBrowserIconRequest(paused)
      ? session.send("Fetch.failRequest", {
        requestId: paused.requestId,
        errorReason: "BlockedByClient",
      })
      : session.send("Fetch.continueRequest", { requestId: paused.requestId });
    // The page may be gone (capture over, context closed): nothing left to answer.
    answer.catch(() => {});
  });
  await session.send("Fetch.enable", {
    patterns: [{ urlPattern: "*", resourceType: "Other", requestStage: "Request" }],
  });
}
