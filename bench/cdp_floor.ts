/**
 * The floor of a capture, timed by `bench/capture.ts` and by `deno task bench:peers`: a bare CDP
 * Page.navigate, the load event and Page.captureScreenshot on one reused page, with none of the
 * service's work (no fresh context, no wait ladder, no cache lookup, no HTTP).
 */
import type { Page } from "puppeteer-core";

export interface CdpFloor {
  /** Navigates to `url`, waits for the load event, shoots the viewport; the PNG's size in bytes. */
  capture(url: string): Promise<number>;
  close(): Promise<void>;
}

/** The floor on `page` (already sized); `cacheDisabled` fetches every subresource afresh. */
export async function openCdpFloor(
  page: Page,
  options: { cacheDisabled?: boolean } = {},
): Promise<CdpFloor> {
  const cdp = await page.createCDPSession();
  await cdp.send("Page.enable");
  if (options.cacheDisabled) {
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  }
  return {
    async capture(url: string) {
      const loaded = new Promise((resolve) => cdp.once("Page.loadEventFired", resolve));
      await cdp.send("Page.navigate", { url });
      await loaded;
      const { data } = await cdp.send("Page.captureScreenshot", {
        format: "png",
        optimizeForSpeed: true,
      });
      return data.length * 3 / 4;
    },
    close: () => cdp.detach(),
  };
}
