/**
 * Isolated browser contexts with one page each, prepared ahead of demand (context created,
 * viewport, user agent and colour scheme applied) so a capture only navigates and shoots.
 * A context serves exactly one capture and is then closed: no cookies, storage or cache leak
 * from one request to the next.
 */
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import type { Logger } from "../../log.ts";
import type { EgressProxy, EgressSession } from "../../egress/proxy.ts";
import type { ColorScheme, DeviceType } from "../types.ts";
import { emulateDevice, openCaptureContext, userAgentsOf } from "../page/context.ts";

/** A prepared context: its own proxy session, so refusals are attributed to this capture. */
export interface PreparedContext {
  context: BrowserContext;
  page: Page;
  session: EgressSession;
  deviceType: DeviceType;
  colorScheme: ColorScheme;
}

export interface ContextPool {
  /** A ready context set up for the device and scheme (made now if none is ready). */
  acquire(deviceType: DeviceType, colorScheme: ColorScheme): Promise<PreparedContext>;
  /** Closes the context in the background and prepares a replacement. */
  release(prepared: PreparedContext): void;
  /** Closes every prepared context; the pool makes no more. */
  close(): Promise<void>;
}

export interface ContextPoolOptions {
  browser: Browser;
  proxy: EgressProxy;
  /** Prepared contexts to keep ready. */
  size: number;
  log: Logger;
  /** How a context is opened; `openSessionContext` except in tests. */
  openContext?: ContextOpener;
}

/** Opens a capture context whose requests go through `session`. */
export type ContextOpener = (
  browser: Browser,
  session: EgressSession,
) => Promise<{ context: BrowserContext; page: Page }>;

/** A pool over one browser; the capturer makes a new one after a relaunch. */
export async function createContextPool(options: ContextPoolOptions): Promise<ContextPool> {
  const { browser, proxy, size, log } = options;
  const openContext = options.openContext ?? openSessionContext;
  const userAgents = userAgentsOf(await browser.userAgent());
  const ready: PreparedContext[] = [];
  const pending = new Set<Promise<unknown>>();
  let creating = 0;
  let closed = false;
  // The combination most recently asked for is the best guess for the next request.
  let wanted: [DeviceType, ColorScheme] = ["desktop", "light"];

  const track = <T>(work: Promise<T>): Promise<T> => {
    pending.add(work);
    void work.catch(() => {}).finally(() => pending.delete(work));
    return work;
  };

  const create = async (
    deviceType: DeviceType,
    colorScheme: ColorScheme,
  ): Promise<PreparedContext> => {
    const session = proxy.openSession();
    try {
      const { context, page } = await openContext(browser, session);
      const prepared = { context, page, session, deviceType, colorScheme };
      await configure(prepared, deviceType, colorScheme, userAgents);
      return prepared;
    } catch (error) {
      session.close();
      throw error;
    }
  };

  const discard = (prepared: PreparedContext) =>
    track(
      prepared.context.close().catch(() => {}).finally(() => prepared.session.close()),
    );

  const refill = () => {
    while (!closed && ready.length + creating < size && browser.connected) {
      creating++;
      const [deviceType, colorScheme] = wanted;
      track(create(deviceType, colorScheme)).then((prepared) => {
        if (closed) discard(prepared);
        else ready.push(prepared);
      }, (error) => {
        if (browser.connected) log.warn("could not prepare a browser context", { error });
      }).finally(() => creating--);
    }
  };

  refill();
  return {
    async acquire(deviceType, colorScheme) {
      wanted = [deviceType, colorScheme];
      const exact = ready.findIndex((s) =>
        s.deviceType === deviceType && s.colorScheme === colorScheme
      );
      const prepared = exact >= 0 ? ready.splice(exact, 1)[0] : ready.shift();
      if (!prepared) return await track(create(deviceType, colorScheme));
      if (exact < 0) {
        try {
          await configure(prepared, deviceType, colorScheme, userAgents);
        } catch (error) {
          discard(prepared);
          throw error;
        }
      }
      return prepared;
    },
    release(prepared) {
      discard(prepared);
      refill();
    },
    async close() {
      closed = true;
      for (const prepared of ready.splice(0)) discard(prepared);
      // Work on a browser that has gone goes with it: a context being opened as the browser
      // closes may otherwise wait out the protocol timeout (45 s), holding up the shutdown.
      const gone = disconnection(browser);
      while (pending.size > 0 && browser.connected) {
        await Promise.race([Promise.allSettled([...pending]), gone]);
      }
    },
  };
}

/** Resolves when the browser disconnects (at once if it already has). */
function disconnection(browser: Browser): Promise<void> {
  if (!browser.connected) return Promise.resolve();
  return new Promise((resolve) => browser.once("disconnected", () => resolve()));
}

/** The local backend's contexts: every request through the capture's own proxy session. */
export const openSessionContext: ContextOpener = (browser, session) =>
  openCaptureContext(browser, { proxyServer: session.url });

async function configure(
  prepared: PreparedContext,
  deviceType: DeviceType,
  colorScheme: ColorScheme,
  userAgents: Record<DeviceType, string>,
): Promise<void> {
  await emulateDevice(prepared.page, { deviceType, colorScheme }, userAgents);
  prepared.deviceType = deviceType;
  prepared.colorScheme = colorScheme;
}
