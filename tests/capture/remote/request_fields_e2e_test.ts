/**
 * The request fields on the "chromium-remote" backend (a second Chromium plays the fleet): its
 * request guard intercepts every request, so blocking must decide inside it, and an html job has
 * no URL for the guard to check up front.
 */
import assert from "node:assert/strict";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { ICONS, requestFieldRoutes } from "../../../testing/request_field_pages.ts";
import { Buffer } from "node:buffer";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";
import { remoteShooter, remoteWithFilters } from "../../../testing/remote_filters.ts";

Deno.test("remote captures honour format, emulation, blocking, metadata and html", async (t) => {
  await using remote = await startRemoteChromium();
  const languages: (string | null)[] = [];
  const pages = servePages(requestFieldRoutes(languages));
  await using remoteFilters = await remoteWithFilters(remote, {});
  const { capturer } = remoteFilters;
  const shoot = remoteShooter(capturer, pages.origin);
  try {
    await t.step("jpeg at a quality", async () => {
      const { image } = await shoot("/photo", { options: { format: "jpeg", quality: 60 } });
      assert.deepEqual([image[0], image[1], image[2]], [0xff, 0xd8, 0xff]);
    });

    await t.step("locale, timezone, reducedMotion and print, as the page saw them", async () => {
      const { page } = await shoot("/seen", {
        options: { locale: "fr-CA", timezone: "America/Toronto", reducedMotion: true },
      });
      assert.deepEqual(JSON.parse(page?.title ?? "null"), {
        language: "fr-CA",
        timeZone: "America/Toronto",
        reducedMotion: true,
        print: false,
        dark: false,
      });
      assert.match(languages.at(-1) ?? "", /^fr-CA/);
      const printed = await shoot("/seen", { colorScheme: "dark", options: { media: "print" } });
      const seen = JSON.parse(printed.page?.title ?? "null");
      assert.deepEqual([seen.print, seen.dark], [true, true]);
    });

    await t.step("javaScript false and a userAgent", async () => {
      const ran = pages.hits.get("/ran") ?? 0;
      const { page } = await shoot("/seen", {
        options: { javaScript: false, userAgent: "RemoteProbe/2" },
      });
      assert.equal(page?.title, null);
      assert.equal(pages.hits.get("/ran") ?? 0, ran);
      assert.equal(pages.lastUserAgent, "RemoteProbe/2");
    });

    await t.step("blockResources and blockRequests inside the request guard", async () => {
      await shoot("/assets");
      const font = pages.hits.get("/font.woff2") ?? 0;
      const picture = pages.hits.get("/pic.svg") ?? 0;
      assert.ok(font > 0 && picture > 0, "the plain capture loads both");
      await shoot("/assets", { options: { blockResources: ["font"], blockRequests: ["*.svg"] } });
      assert.equal(pages.hits.get("/font.woff2"), font);
      assert.equal(pages.hits.get("/pic.svg"), picture);
    });

    await t.step("metadata and an html document", async () => {
      const { page } = await shoot("/meta-full");
      assert.equal(page?.title, "Full page");
      assert.equal(page?.favicon, `${pages.origin}/icons/48.png`);
      assert.equal(
        page?.faviconData,
        `data:image/png;base64,${Buffer.from(ICONS.png48).toString("base64")}`,
      );
      const before = pages.hits.get("/pic.svg") ?? 0;
      const html = await capturer.capture({
        url: "about:blank",
        html: `<title>Card</title><img src="${pages.origin}/pic.svg">`,
        deviceType: "desktop",
        colorScheme: "light",
      });
      assert.equal(html.page?.title, "Card");
      assert.equal(html.targetStatus, null);
      assert.equal(pages.hits.get("/pic.svg"), before + 1);
    });
  } finally {
    await pages.close();
  }
});
