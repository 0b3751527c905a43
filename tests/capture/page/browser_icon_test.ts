/**
 * Which paused requests the page's own favicon fetch is (lib/capture/page/browser_icon.ts): the
 * browser's icon request is of type Other and asks for an image; prefetches, beacons, the page's
 * images and anything else of type Other go through untouched.
 */
import assert from "node:assert/strict";
import { isBrowserIconRequest } from "../../../lib/capture/page/browser_icon.ts";

const paused = (resourceType: string, accept?: string) => ({
  requestId: "interception-1",
  resourceType,
  request: { headers: accept === undefined ? {} : { Accept: accept } as Record<string, string> },
});

// What Chromium 156 sends for a page's icon (seen in Fetch.requestPaused).
const ICON_ACCEPT = "image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";

Deno.test("the browser's icon request is stopped", () => {
  assert.equal(isBrowserIconRequest(paused("Other", ICON_ACCEPT)), true);
  assert.equal(
    isBrowserIconRequest({ ...paused("Other"), request: { headers: { accept: "image/*" } } }),
    true,
  );
});

Deno.test("the page's own requests are not", () => {
  assert.equal(isBrowserIconRequest(paused("Image", ICON_ACCEPT)), false, "an <img> of the icon");
  assert.equal(isBrowserIconRequest(paused("Other", "*/*")), false);
  assert.equal(isBrowserIconRequest(paused("Other")), false);
  assert.equal(isBrowserIconRequest(paused("Prefetch", ICON_ACCEPT)), false);
  assert.equal(isBrowserIconRequest(paused("Document", "text/html,image/avif")), false);
});
