/**
 * CAPTURE_BYTE_BUDGET on a remote browser, which our egress proxy does not see: the page's own
 * network events are counted, and past the budget the page goes offline (DevTools network
 * emulation), which fails its loads in flight and every later one. The page's requests only:
 * what workers of other targets or popups download is not counted.
 */
import type { Page } from "puppeteer-core";
import type { Logger } from "../../log.ts";

/** Watches one capture's page; `overBudget` turns true once the page has been cut off. */
export async function enforceByteBudget(
  page: Page,
  budget: number,
  log: Logger,
): Promise<{ readonly overBudget: boolean }> {
  const cdp = await page.createCDPSession();
  let received = 0;
  let overBudget = false;
  cdp.on("Network.dataReceived", (event) => {
    // Bytes on the wire where the browser reports them, else the decoded size (never less).
    received += Math.max(event.encodedDataLength, event.dataLength);
    if (overBudget || received <= budget) return;
    overBudget = true;
    log.warn("capture byte budget exceeded; page cut off", { budget, bytesIn: received });
    cdp.send("Network.emulateNetworkConditions", {
      offline: true,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    }).catch(() => {});
  });
  await cdp.send("Network.enable");
  return {
    get overBudget() {
      return overBudget;
    },
  };
}
