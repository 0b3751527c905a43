/**
 * The capture options on the "chromium-remote" backend (a second Chromium plays the fleet):
 * the same render path as the local backend, but ad blocking goes through the request guard's
 * interception, so that is what this file proves most carefully.
 */
import assert from "node:assert/strict";
import type { CaptureOptions } from "../../../lib/capture/request/options.ts";
import { decodePng, servePages } from "../../../testing/capture_fixtures.ts";
import { optionRoutes } from "../../../testing/option_pages.ts";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";
import { remoteShooter, remoteWithFilters } from "../../../testing/remote_filters.ts";

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

Deno.test("remote captures honour fullPage, scale, selector, blockAds and hideCookieBanners", async (t) => {
  await using remote = await startRemoteChromium();
  const choices: string[] = [];
  const pages = servePages(optionRoutes(choices));
  await using remoteFilters = await remoteWithFilters(remote, {
    urls: [`${pages.origin}/filters.txt`],
  });
  const { capturer } = remoteFilters;
  const capture = remoteShooter(capturer, pages.origin);
  const shoot = async (path: string, options: CaptureOptions) => {
    const result = await capture(path, { options });
    return { result, image: decodePng(result.image) };
  };
  try {
    await t.step("fullPage: 1920x5000 with the bottom band", async () => {
      const { image, result } = await shoot("/long", { fullPage: true });
      assert.deepEqual([image.width, image.height], [1920, 5000]);
      assert.deepEqual(image.rgb(960, 4900), BLUE);
      assert.equal(result.truncated, undefined);
    });
    await t.step("fullPage on 40000 px: cut at the cap, truncated", async () => {
      const { image, result } = await shoot("/huge", { fullPage: true });
      assert.deepEqual([image.width, image.height], [1920, 32767]);
      assert.equal(result.truncated, true);
      assert.deepEqual(image.rgb(960, 32766), RED, "1000 px bands from red: the cap's row");
    });
    await t.step("scale 2: 3840x2160", async () => {
      const { image } = await shoot("/strip", { scale: 2 });
      assert.deepEqual([image.width, image.height], [3840, 2160]);
      assert.deepEqual(image.rgb(100, 390), RED);
    });
    await t.step("selector: the 400x300 element", async () => {
      const { image } = await shoot("/card", { selector: "#card" });
      assert.deepEqual([image.width, image.height], [400, 300]);
      assert.deepEqual(image.rgb(200, 150), GREEN);
    });
    await t.step("blockAds: slot hidden, ad never requested", async () => {
      const { image } = await shoot("/ads", { blockAds: true });
      assert.deepEqual(image.rgb(960, 150), WHITE);
      assert.equal(pages.hits.get("/ads/banner.svg"), undefined);
      assert.equal(pages.hits.get("/ads"), 1);
    });
    await t.step("hideCookieBanners: OneTrust rejected", async () => {
      const { image } = await shoot("/onetrust", { hideCookieBanners: true });
      assert.deepEqual(image.rgb(960, 1000), WHITE);
      assert.deepEqual(choices, ["onetrust-reject"]);
    });
  } finally {
    await pages.close();
  }
});
