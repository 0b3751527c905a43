/**
 * The request fields people expect from a screenshot API, end to end on the local backend: image
 * formats and raw bytes, emulation as the page sees it, request blocking as the server sees it,
 * the page's metadata, and an html document. One app (one Chromium) for the whole file.
 */
import assert from "node:assert/strict";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { captureHarness } from "../../../testing/capture_harness.ts";
import { ICONS, requestFieldRoutes } from "../../../testing/request_field_pages.ts";
import { icoImages } from "../../../testing/icons.ts";
import { Buffer } from "node:buffer";
import { loadSharp } from "../../../lib/codecs/sharp.ts";
import { captureAnswer } from "../../../testing/capture_answer.ts";

const GREEN = [0, 255, 0];

/** Decoded RGB pixels of any image sharp reads. */
async function pixelsOf(bytes: Uint8Array) {
  const loaded = await loadSharp();
  if (!("sharp" in loaded)) throw new Error(`sharp: ${loaded.reason}`);
  const { data, info } = await loaded.sharp(bytes).removeAlpha().raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** Mean absolute difference per channel of two same-sized RGB images. */
function meanDifference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

const dataUrl = (type: string, bytes: Uint8Array) =>
  `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;
const bytesOf = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

Deno.test("request fields reach the page, the server and the image, in real Chromium", async (t) => {
  const languages: (string | null)[] = [];
  const iconRequests: Headers[] = [];
  const pages = servePages(requestFieldRoutes(languages, iconRequests));
  const { harness, shoot, capture } = await captureHarness(pages);
  const json = async (path: string, options: Record<string, unknown> = {}) => {
    const response = await shoot({ url: `${pages.origin}${path}`, ...options });
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    return JSON.parse(text);
  };
  const seen = (body: { page: { title: string } }) => JSON.parse(body.page.title);

  try {
    await t.step("jpeg and webp: the same pixels as the PNG, within a tolerance", async () => {
      const png = await pixelsOf(bytesOf((await json("/photo")).screenshot));
      for (const [format, quality] of [["jpeg", 90], ["webp", 90], ["jpeg", undefined]]) {
        const body = await json("/photo", { format, quality });
        assert.equal(body.format, format);
        const image = bytesOf(body.screenshot);
        const magic = format === "jpeg" ? [0xff, 0xd8] : [0x52, 0x49];
        assert.deepEqual([image[0], image[1]], magic);
        const decoded = await pixelsOf(image);
        assert.deepEqual([decoded.width, decoded.height, body.width], [1920, 1080, 1920]);
        assert.ok(meanDifference(decoded.data, png.data) < 4, `${format} ${quality}`);
      }
    });

    await t.step(
      "raw bytes by Accept: the image itself with the JSON's facts as headers",
      async () => {
        const response = await harness.app.request("/api/screenshot", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "image/webp" },
          body: JSON.stringify({ url: `${pages.origin}/photo`, quality: 50 }),
        });
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "image/webp");
        const image = new Uint8Array(await response.arrayBuffer());
        assert.equal(new TextDecoder().decode(image.subarray(8, 12)), "WEBP");
        assert.equal(response.headers.get("x-cache"), "miss");
        assert.equal(response.headers.get("x-target-status"), "200");
        assert.equal(response.headers.get("x-image-width"), "1920");
        assert.equal(response.headers.get("x-image-height"), "1080");
        assert.equal(response.headers.get("age"), "0");
        assert.equal(response.headers.get("x-truncated"), null);
        assert.equal(response.headers.get("vary"), "Accept");
        // The same request as JSON is now a hit of the same render.
        const again = await json("/photo", { format: "webp", quality: 50 });
        assert.equal(again.cached, true);
        assert.deepEqual(bytesOf(again.screenshot), image);
      },
    );

    await t.step("locale, timezone, reducedMotion and print, as the page saw them", async () => {
      const plain = seen(await json("/seen"));
      assert.equal(plain.reducedMotion, false);
      assert.equal(plain.print, false);
      const body = await json("/seen", {
        locale: "de-DE",
        timezone: "asia/tokyo",
        reducedMotion: true,
        media: "print",
        colorScheme: "dark",
      });
      assert.deepEqual(seen(body), {
        language: "de-DE",
        timeZone: "Asia/Tokyo",
        reducedMotion: true,
        print: true,
        dark: true,
      });
      assert.match(languages.at(-1) ?? "", /^de-DE/, "Accept-Language on the wire");
    });

    await t.step("a time zone or locale the browser refuses is a 400, not a failure", async () => {
      // The route checks both against the service's own data first; the browser is asked here.
      for (const options of [{ timezone: "Mars/Olympus" }, { locale: "i-klingon" }]) {
        const error = await captureAnswer(harness.deps.capture.capture({
          url: `${pages.origin}/seen`,
          deviceType: "desktop",
          colorScheme: "light",
          options,
        }));
        assert.equal(error.status, 400);
        assert.equal(error.code, "invalid_request");
        assert.match(error.message, /capture's browser knows/);
      }
    });

    await t.step("emulation stays with its capture: the next one sees the defaults", async () => {
      const next = seen(await json("/seen", { forceRefresh: true }));
      assert.deepEqual(next, { ...seen(await json("/seen")), reducedMotion: false, print: false });
      assert.notEqual(next.language, "de-DE");
      assert.notEqual(next.timeZone, "Asia/Tokyo");
    });

    await t.step("print media renders the print styles", async () => {
      const { image } = await capture("/seen", { media: "print" });
      assert.deepEqual(image.rgb(10, 10), [255, 0, 0]);
    });

    await t.step("userAgent replaces the device's, for the page and the server", async () => {
      await json("/seen", { userAgent: "ShotlineProbe/1.0", device: "iphone-15" });
      assert.equal(pages.lastUserAgent, "ShotlineProbe/1.0");
    });

    await t.step("javaScript false: the page's script never runs", async () => {
      const ran = pages.hits.get("/ran") ?? 0;
      const body = await json("/seen", { javaScript: false, forceRefresh: true });
      assert.equal(body.page.title, null, "the script that sets the title did not run");
      assert.equal(pages.hits.get("/ran") ?? 0, ran, "nor fetched");
      const { image } = await capture("/seen", { javaScript: false, styles: "p{}" });
      assert.deepEqual(image.rgb(10, 10), GREEN, "the page still renders");
    });

    await t.step("blockResources and blockRequests: never requested at all", async () => {
      await json("/assets");
      const font = pages.hits.get("/font.woff2") ?? 0;
      const picture = pages.hits.get("/pic.svg") ?? 0;
      assert.ok(font > 0 && picture > 0, "the plain capture loads both");
      await json("/assets", { blockResources: ["font", "image"] });
      assert.equal(pages.hits.get("/font.woff2"), font);
      assert.equal(pages.hits.get("/pic.svg"), picture);
      await json("/assets", { blockRequests: ["*/pic.svg"] });
      assert.equal(pages.hits.get("/pic.svg"), picture);
      assert.equal(pages.hits.get("/font.woff2"), font + 1, "only the pattern's request");
    });

    await t.step("blockResources websocket: the page cannot open one", async () => {
      assert.equal((await json("/socket")).page.title, "opened");
      const blocked = await json("/socket", { blockResources: ["websocket"] });
      assert.equal(blocked.page.title, "refused");
    });

    await t.step("metadata: every field of a page that declares them", async () => {
      const body = await json("/meta-full");
      assert.deepEqual(body.page, {
        title: "Full page",
        description: "All the fields.",
        lang: "en-GB",
        themeColor: "#123456",
        favicon: `${pages.origin}/icons/48.png`,
        faviconData: dataUrl("image/png", ICONS.png48),
        ogImage: `${pages.origin}/card.png`,
      });
      const dark = await json("/meta-full", { colorScheme: "dark" });
      assert.equal(dark.page.themeColor, "#654321");
    });

    await t.step("metadata: a page that declares nothing", async () => {
      const body = await json("/meta-none");
      assert.deepEqual(body.page, {
        title: null,
        description: null,
        lang: null,
        themeColor: null,
        favicon: `${pages.origin}/favicon.ico`,
        faviconData: body.page.faviconData,
        ogImage: null,
      });
      // The origin's .ico, cut to the image a browser bar draws.
      assert.match(body.page.faviconData, /^data:image\/x-icon;base64,/);
      const images = icoImages(Buffer.from(body.page.faviconData.split(",")[1], "base64"));
      assert.deepEqual(images.map((i) => [i.side, [...i.bytes]]), [[32, [...ICONS.ico32]]]);
    });

    await t.step("favicon bytes: cached with the capture, left out when blocked", async () => {
      const cached = await json("/meta-full");
      assert.equal(cached.cached, true);
      assert.equal(cached.page.faviconData, dataUrl("image/png", ICONS.png48));
      const icons = pages.hits.get("/icons/48.png") ?? 0;
      const blocked = await json("/meta-full", { blockRequests: ["*/icons/*"] });
      assert.equal(blocked.page.favicon, `${pages.origin}/icons/48.png`, "still named");
      assert.equal(blocked.page.faviconData, null);
      assert.equal(pages.hits.get("/icons/48.png") ?? 0, icons, "never requested");
    });

    await t.step(
      "favicon bytes: asked for as the page's browser would, without cookies",
      async () => {
        iconRequests.length = 0;
        const body = await json("/meta-full", {
          userAgent: "IconProbe/1",
          locale: "de-DE",
          cookies: [{ name: "session", value: "secret" }],
        });
        assert.equal(body.page.faviconData, dataUrl("image/png", ICONS.png48));
        // The browser may ask for an icon too (with its Sec-Fetch headers); this is the service's.
        const ours = iconRequests.filter((h) => !h.has("sec-fetch-mode"));
        assert.equal(ours.length, 1, "the icon was requested once");
        for (const headers of ours) {
          assert.equal(headers.get("user-agent"), "IconProbe/1");
          assert.match(headers.get("accept-language") ?? "", /^de-DE/);
          assert.equal(headers.get("cookie"), null);
        }
      },
    );

    await t.step("favicon bytes: the icon of the settled page, even if it changed", async () => {
      const body = await json("/meta-icon-changes");
      assert.equal(body.page.favicon, `${pages.origin}/pic.svg`);
      assert.match(body.page.faviconData, /^data:image\/svg\+xml;base64,/);
    });

    await t.step("favicon bytes: an SVG is kept; HTML, too large or too slow is not", async () => {
      const svg = await json("/meta-svg-icon");
      assert.match(svg.page.faviconData, /^data:image\/svg\+xml;base64,/);
      const left = [
        ["/meta-not-icon", "/not-icon.png"],
        ["/meta-large-icon", "/large.png"],
        ["/meta-slow-icon", "/slow.png"],
      ];
      for (const [path, icon] of left) {
        const body = await json(path);
        assert.equal(body.page.favicon, `${pages.origin}${icon}`, path);
        assert.equal(body.page.faviconData, null, path);
      }
    });

    await t.step("html: the document is rendered, about:blank, keyed by its hash", async () => {
      const html = `<title>Invoice</title><body style="margin:0;background:#00ff00">` +
        `<img src="${pages.origin}/pic.svg?html" width="100" height="100">`;
      const before = pages.hits.get("/pic.svg") ?? 0;
      const response = await shoot({ html });
      const text = await response.text();
      assert.equal(response.status, 200, text.slice(0, 300));
      const body = JSON.parse(text);
      assert.equal(body.url, "about:blank");
      assert.equal(body.page.title, "Invoice");
      assert.equal(body.page.favicon, null);
      assert.equal(body.page.faviconData, null);
      assert.equal(body.httpStatus, undefined);
      assert.equal(pages.hits.get("/pic.svg"), before + 1, "its image loaded like a page's");
      const again = JSON.parse(await (await shoot({ html })).text());
      assert.equal(again.cached, true);
      const other = JSON.parse(await (await shoot({ html: html + " " })).text());
      assert.equal(other.cached, false, "another document is another entry");
    });
  } finally {
    await harness.close();
    await pages.close();
  }
});
