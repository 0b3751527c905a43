/**
 * Isolated browser contexts with one page each, prepared ahead of demand (context created,
 * viewport, user agent and colour scheme applied) so a capture only navigates and shoots.
 * A context serves exactly one capture and is then closed: no cookies, storage or cache leak
 * from one request to the next.
 */
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import type { Logger } from "../../log.ts";
import type { EgressProxy, EgressSession } from "../../egress/proxy.ts";
import { type ColorScheme, type DeviceType, VIEWPORTS } from "../types.ts";
import { lockDownPage } from "../page/lockdown.ts";

/** A prepared context: its own proxy session, so refusals are attributed to this capture. */
export interface Slot {
  context: BrowserContext;
  page: Page;
  session: EgressSession;
  deviceType: DeviceType;
  colorScheme: ColorScheme;
}

export interface PagePool {
  /** A ready slot set up for the device and scheme (made now if none is ready). */
  acquire(deviceType: DeviceType, colorScheme: ColorScheme): Promise<Slot>;
  /** Closes the slot's context in the background and prepares a replacement. */
  release(slot: Slot): void;
  /** Closes every slot; the pool makes no more. */
  close(): Promise<void>;
}

export interface PagePoolOptions {
  browser: Browser;
  proxy: EgressProxy;
  /** Ready slots to keep. */
  size: number;
  log: Logger;
  /** How a context is opened; `openCaptureContext` except in tests. */
  openContext?: ContextOpener;
}

/** Opens a capture context whose requests go through `session`. */
export type ContextOpener = (
  browser: Browser,
  session: EgressSession,
) => Promise<{ context: BrowserContext; page: Page }>;

/** A pool over one browser; the capturer makes a new one after a relaunch. */
export async function createPagePool(options: PagePoolOptions): Promise<PagePool> {
  const { browser, proxy, size, log } = options;
  const openContext = options.openContext ?? openCaptureContext;
  const userAgents = userAgentsOf(await browser.userAgent());
  const ready: Slot[] = [];
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

  const create = async (deviceType: DeviceType, colorScheme: ColorScheme): Promise<Slot> => {
    const session = proxy.openSession();
    try {
      const { context, page } = await openContext(browser, session);
      const slot = { context, page, session, deviceType, colorScheme };
      await configure(slot, deviceType, colorScheme, userAgents);
      return slot;
    } catch (error) {
      session.close();
      throw error;
    }
  };

  const discard = (slot: Slot) =>
    track(
      slot.context.close().catch(() => {}).finally(() => slot.session.close()),
    );

  const refill = () => {
    while (!closed && ready.length + creating < size && browser.connected) {
      creating++;
      const [deviceType, colorScheme] = wanted;
      track(create(deviceType, colorScheme)).then((slot) => {
        if (closed) discard(slot);
        else ready.push(slot);
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
      const slot = exact >= 0 ? ready.splice(exact, 1)[0] : ready.shift();
      if (!slot) return await track(create(deviceType, colorScheme));
      if (exact < 0) {
        try {
          await configure(slot, deviceType, colorScheme, userAgents);
        } catch (error) {
          discard(slot);
          throw error;
        }
      }
      return slot;
    },
    release(slot) {
      discard(slot);
      refill();
    },
    async close() {
      closed = true;
      for (const slot of ready.splice(0)) discard(slot);
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

/**
 * A fresh incognito context whose every request goes through `session`, with one page: the one
 * way captures (and the boundary self-test) open a context.
 */
export async function openCaptureContext(
  browser: Browser,
  session: EgressSession,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.createBrowserContext({
    proxyServer: session.url,
    // Without this Chromium sends loopback destinations around the proxy.
    proxyBypassList: ["<-loopback>"],
    // A download would write to disk and is never a screenshot.
    downloadBehavior: { policy: "deny" },
  });
  try {
    const page = await context.newPage();
    // An alert() would block the page (and the screenshot) until someone answers it.
    page.on("dialog", (dialog) => void dialog.dismiss().catch(() => {}));
    // WebRTC a second time (the profile's preferences are the first), and no new windows.
    await lockDownPage(page);
    return { context, page };
  } catch (error) {
    await context.close().catch(() => {});
    throw error;
  }
}

async function configure(
  slot: Slot,
  deviceType: DeviceType,
  colorScheme: ColorScheme,
  userAgents: Record<DeviceType, string>,
): Promise<void> {
  await emulateDevice(slot.page, deviceType, colorScheme, userAgents);
  slot.deviceType = deviceType;
  slot.colorScheme = colorScheme;
}

/** Viewport in CSS pixels at scale 1, mobile emulation and user agent, prefers-color-scheme. */
export async function emulateDevice(
  page: Page,
  deviceType: DeviceType,
  colorScheme: ColorScheme,
  userAgents: Record<DeviceType, string>,
): Promise<void> {
  const mobile = deviceType === "mobile";
  const { width, height } = VIEWPORTS[deviceType];
  await Promise.all([
    page.setViewport({ width, height, deviceScaleFactor: 1, isMobile: mobile, hasTouch: mobile }),
    page.setUserAgent({ userAgent: userAgents[deviceType] }),
    page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: colorScheme }]),
  ]);
}

/**
 * The browser's own user agent without "Headless" (some sites refuse headless browsers), and
 * an Android phone's for mobile, both naming the running Chrome version.
 */
export function userAgentsOf(browserAgent: string): Record<DeviceType, string> {
  const major = /Chrome\/(\d+)/.exec(browserAgent)?.[1] ?? "130";
  return {
    desktop: browserAgent.replace("HeadlessChrome/", "Chrome/"),
    mobile: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) " +
      `Chrome/${major}.0.0.0 Mobile Safari/537.36`,
  };
}
