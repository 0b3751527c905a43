/**
 * A page set up as a capture's on the local backend (the browser host's launch, preferences and
 * environment; a context behind its own egress proxy session), without the rest of the service,
 * for the namespace scripts that need to drive the page themselves.
 */
import type { Page } from "puppeteer-core";
import { createBrowserHost } from "../../../lib/capture/local/browser.ts";
import { createEgressProxy } from "../../../lib/egress/proxy.ts";
import { createLogger } from "../../../lib/log.ts";

/** Runs `use` with the page, then closes the browser and the proxy. */
export async function withCapturePage<T>(use: (page: Page) => Promise<T>): Promise<T> {
  const log = createLogger("error", (line) => console.error(line));
  const proxy = createEgressProxy({
    resolver: () => Promise.resolve([]),
    allowPrivateNetwork: false,
    connectTimeoutMs: 2_000,
  }, log);
  const session = proxy.openSession();
  const host = createBrowserHost({ proxyUrl: () => session.url, log, onBrowser() {} });
  try {
    const browser = await host.get();
    const context = await browser.createBrowserContext({
      proxyServer: session.url,
      proxyBypassList: ["<-loopback>"],
    });
    return await use(await context.newPage());
  } finally {
    await host.close();
    proxy.close();
  }
}
