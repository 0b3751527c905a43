/**
 * width, height, device and scale in the page, before navigation: the context arrives emulating
 * its device type (lib/capture/local/context_pool.ts, emulateDevice); these options resize it,
 * and a named device also brings its pixel ratio, touch and user agent.
 */
import type { Page } from "puppeteer-core";
import { DEVICES, deviceUserAgent } from "../request/devices.ts";
import type { CaptureOptions } from "../request/options.ts";

/** Applies the job's viewport options; a job without them leaves the page untouched. */
export async function applyViewport(page: Page, options: CaptureOptions): Promise<void> {
  const current = page.viewport();
  const scaled = options.scale !== undefined && options.scale !== 1;
  if (!current || (!options.device && !options.width && !options.height && !scaled)) return;
  const device = options.device ? DEVICES[options.device] : null;
  const mobile = device ? device.deviceType === "mobile" : current.isMobile ?? false;
  await page.setViewport({
    ...current,
    width: options.width ?? device?.width ?? current.width,
    height: options.height ?? device?.height ?? current.height,
    // An explicit scale (not the default 1) wins over the device's own pixel ratio.
    deviceScaleFactor: scaled ? options.scale : device?.scale ?? current.deviceScaleFactor ?? 1,
    isMobile: mobile,
    hasTouch: device ? mobile : current.hasTouch,
  });
  // The request's own userAgent (page/emulation.ts) wins over the device's.
  const userAgent = !options.userAgent && device &&
    deviceUserAgent(device, await page.browser().userAgent());
  if (userAgent) await page.setUserAgent({ userAgent });
}
