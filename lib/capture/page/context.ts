/**
 * The one way both backends open a capture's browser context: a fresh incognito context with
 * one locked-down page and the device emulated on it. Local and remote captures differ only in
 * how their traffic leaves (the context's proxy) and in what their boundary cannot see (the
 * lockdown options).
 */
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { type ColorScheme, type DeviceType, VIEWPORTS } from "../types.ts";
import { type LockdownOptions, lockDownPage } from "./lockdown.ts";
import { stopBrowserIconFetch } from "./browser_icon.ts";

export interface CaptureContextOptions {
  /** Proxy every request of the context goes through (the egress proxy); none: direct. */
  proxyServer?: string;
  /** What the page loses besides WebRTC and new windows (see lockDownPage). */
  lockdown?: LockdownOptions;
}

/**
 * A fresh incognito context with one page: downloads denied, dialogs dismissed, WebRTC and new
 * windows taken away before the page's own scripts run, the browser's own favicon request
 * stopped. Closed again if any step fails.
 */
export async function openCaptureContext(
  browser: Browser,
  options: CaptureContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.createBrowserContext({
    ...(options.proxyServer && {
      proxyServer: options.proxyServer,
      // Without "<-loopback>" Chromium would send loopback destinations around the proxy.
      proxyBypassList: ["<-loopback>"],
    }),
    // A download would write to disk and is never a screenshot.
    downloadBehavior: { policy: "deny" },
  });
  try {
    const page = await context.newPage();
    // An alert() would block the page (and the screenshot) until someone answers it.
    page.on("dialog", (dialog) => void dialog.dismiss().catch(() => {}));
    await lockDownPage(page, options.lockdown);
    // The service loads the favicon itself (favicon.ts): the browser's own load would be a second.
    await stopBrowserIconFetch(page);
    return { context, page };
  } catch (error) {
    await context.close().catch(() => {});
    throw error;
  }
}

/** Viewport in CSS pixels at scale 1, mobile emulation and user agent, prefers-color-scheme. */
export async function emulateDevice(
  page: Page,
  device: { deviceType: DeviceType; colorScheme: ColorScheme },
  userAgents: Record<DeviceType, string>,
): Promise<void> {
  const { deviceType, colorScheme } = device;
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
