// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// The capture form's fields as the body of POST /api/screenshot: what Capture sends, and what
// a download of the page (PDF, video, text) starts from.
import { normaliseUrl } from "./shared.js";

/**
 * The capture options that differ from the API's defaults: a plain capture stays the same
 * request, and so the same cache entry, as one from a page without these controls.
 * @param {FormData} form
 * @returns {Record<string, string | number | true>}
 */
export function captureOptions(form) {
  const scale = Number(form.get("scale") ?? 1);
  const device = String(form.get("device") ?? "");
  const width = Number(form.get("width") || 0);
  const height = Number(form.get("height") || 0);
  const styles = String(form.get("styles") ?? "").trim();
  return {
    ...(device && { device }),
    ...(width > 0 && { width }),
    ...(height > 0 && { height }),
    ...(form.get("fullPage") === "on" && { fullPage: true }),
    ...(scale !== 1 && { scale }),
    ...(form.get("hideCookieBanners") === "on" && { hideCookieBanners: true }),
    ...(form.get("blockAds") === "on" && { blockAds: true }),
    ...(form.get("hideAnnoyances") === "on" && { hideAnnoyances: true }),
    ...(form.get("transparent") === "on" && { transparent: true }),
    ...(styles && { styles }),
  };
}

/**
 * The body the Capture button sends: the page, its device and colours, Refresh, and the options.
 * @param {FormData} form
 * @returns {{ url: string } & Record<string, unknown>}
 */
export function captureBody(form) {
  return {
    url: normaliseUrl(String(form.get("url"))),
    deviceType: form.get("deviceType"),
    colorScheme: form.get("colorScheme"),
    forceRefresh: form.get("forceRefresh") === "on",
    ...captureOptions(form),
  };
}
