/**
 * userAgent, locale, timezone, reducedMotion, media and javaScript on the capture's page, before
 * navigation. Every override is set on the page of this one capture: a pooled context serves
 * exactly one capture and is closed after it (lib/capture/local/context_pool.ts), so nothing here
 * can reach the next request's page.
 */
import type { Page } from "puppeteer-core";
import type { ColorScheme } from "../types.ts";
import type { CaptureOptions } from "../request/options.ts";
import { invalidField } from "../request/request_failure.ts";

/** Whether a job asks for any emulation beyond its device and colour scheme. */
export function hasEmulation(options: CaptureOptions): boolean {
  return options.userAgent !== undefined || options.locale !== undefined ||
    options.timezone !== undefined || options.reducedMotion === true ||
    options.media === "print" || options.javaScript === false;
}

/**
 * Applies the job's emulation options to `page`; a job without them leaves the page as its
 * device emulation set it. `colorScheme` is set again with print media and reduced motion: the
 * media features are one list, and setting one replaces the others.
 */
export async function applyEmulation(
  page: Page,
  emulation: { options?: CaptureOptions; colorScheme: ColorScheme },
): Promise<void> {
  const { options = {}, colorScheme } = emulation;
  if (!hasEmulation(options)) return;
  const steps: Promise<void>[] = [];
  // After any device user agent (applyViewport runs later, but never with a userAgent: the
  // request's own wins there too, see viewport.ts).
  if (options.userAgent) steps.push(page.setUserAgent({ userAgent: options.userAgent }));
  // navigator.language(s), the Accept-Language header and Intl's default locale.
  // The request checked both against the service's own ICU data; a browser (a remote fleet's,
  // an older build) may know fewer.
  if (options.locale) {
    steps.push(refusedAsBadField(
      page.emulateLocale(options.locale),
      `locale "${options.locale}"`,
      'Send a common language tag such as "de-DE", "fr" or "pt-BR".',
    ));
  }
  if (options.timezone) {
    steps.push(refusedAsBadField(
      page.emulateTimezone(options.timezone),
      `timezone "${options.timezone}"`,
      'Send a long-standing IANA name such as "Europe/Berlin", "America/New_York" or "UTC".',
    ));
  }
  if (options.javaScript === false) steps.push(page.setJavaScriptEnabled(false));
  await Promise.all(steps);
  if (options.media === "print" || options.reducedMotion) {
    await emulateMedia(page, {
      media: options.media === "print" ? "print" : "",
      colorScheme,
      reducedMotion: options.reducedMotion === true,
    });
  }
}

/**
 * The CSS media type with the media features the capture emulates. Chromium keeps the media type
 * and the media features as one setting (setting either alone clears the other), so both go in
 * one call, the colour scheme included; "" is the page's own media type (screen).
 */
export async function emulateMedia(
  page: Page,
  media: { media: "" | "screen" | "print"; colorScheme: ColorScheme; reducedMotion: boolean },
): Promise<void> {
  // Kept attached: a session's overrides end with it, and the page closes after the capture.
  const session = await page.createCDPSession();
  await session.send("Emulation.setEmulatedMedia", {
    media: media.media,
    features: [
      { name: "prefers-color-scheme", value: media.colorScheme },
      ...(media.reducedMotion ? [{ name: "prefers-reduced-motion", value: "reduce" }] : []),
    ],
  });
}

/** `step`, whose refusal by the browser is the request's fault: a 400 naming `what`. */
function refusedAsBadField(step: Promise<void>, what: string, hint: string): Promise<void> {
  return step.catch(() => {
    throw invalidField(`${what} is not one the capture's browser knows.`, hint);
  });
}
