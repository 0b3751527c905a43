/**
 * The newer request fields through the route with a test capturer: the 400 envelopes and their
 * hints, what the job carries, the Accept negotiation, and the cache-key rules (a request without
 * the new fields keeps its key; spellings of one render share one; an html job is keyed by its
 * document).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { captureKey, captureUrlKey } from "../../../lib/capture/service/cache.ts";
import { matchesPattern } from "../../../lib/capture/request/blocking.ts";
import type { ErrorCode } from "../../../lib/errors.ts";
import { sha256Hex } from "../../../lib/hash.ts";
import { createCaptureApp } from "../../../testing/capture_app.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";

const URL_A = "https://example.com/a";

Deno.test("a request without the new fields keeps its job and cache key", async () => {
  const t = await createCaptureApp();
  try {
    const response = await t.shoot({
      url: URL_A,
      format: "png",
      media: "screen",
      javaScript: true,
      reducedMotion: false,
      blockResources: [],
      blockRequests: [],
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
    const job = t.capture.jobs.at(-1)!;
    assert.deepEqual(job, { url: URL_A, deviceType: "desktop", colorScheme: "light" });
    const plain = [...await captureUrlKey(URL_A), "desktop", "light"];
    assert.deepEqual(await captureKey(job), plain);
  } finally {
    await t.close();
  }
});

Deno.test("spellings of one render share a job: quality default, locale, zone, sets, clip", async () => {
  const t = await createCaptureApp();
  try {
    const jobOf = async (body: Record<string, unknown>) => {
      const response = await t.shoot({ url: URL_A, forceRefresh: true, ...body });
      assert.equal(response.status, 200, await response.clone().text());
      await response.body?.cancel();
      return t.capture.jobs.at(-1)!;
    };
    const same = async (a: Record<string, unknown>, b: Record<string, unknown>) => {
      const [x, y] = [await jobOf(a), await jobOf(b)];
      assert.deepEqual(x.options, y.options);
      assert.deepEqual(await captureKey(x), await captureKey(y));
      return x;
    };
    const jpeg = await same({ format: "jpeg" }, { format: "jpeg", quality: 80 });
    assert.deepEqual(jpeg.options, { format: "jpeg", quality: 80 });
    const emulated = await same(
      { locale: "de-de", timezone: "europe/berlin" },
      { locale: "de-DE", timezone: "Europe/Berlin" },
    );
    assert.deepEqual(emulated.options, { locale: "de-DE", timezone: "Europe/Berlin" });
    await same(
      { blockResources: ["font", "image", "font"], blockRequests: ["*.woff2", "*.gif"] },
      { blockResources: ["image", "font"], blockRequests: ["*.gif", "*.woff2"] },
    );
    await same(
      { clip: { height: 10, width: 20, y: 0, x: 5 } },
      { clip: { x: 5, y: 0, width: 20, height: 10 } },
    );
    const webp = await jobOf({ format: "webp", quality: 80 });
    assert.notDeepEqual(await captureKey(webp), await captureKey(jpeg), "format is in the key");
  } finally {
    await t.close();
  }
});

Deno.test("an html job renders about:blank, keyed by the document's hash", async () => {
  const t = await createCaptureApp();
  try {
    const html = "<h1>Hello</h1>";
    const response = await t.shoot({ html });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    const body = await response.json();
    assert.equal(body.url, "about:blank");
    const job = t.capture.jobs.at(-1)!;
    assert.deepEqual([job.url, job.html], ["about:blank", html]);
    const key = await captureKey(job);
    const hash = await sha256Hex(new TextEncoder().encode(html));
    assert.deepEqual(key, [...await captureUrlKey(`html:${hash}`), "desktop", "light"]);
    const blocking = await t.shoot({ html, blockRequests: ["*"] });
    assert.equal(blocking.status, 200, "a document sent is never requested, so never blocked");
    await blocking.body?.cancel();
    const cached = await (await t.shoot({ html })).json();
    assert.equal(cached.cached, true);
    const other = await (await t.shoot({ html: "<h1>Other</h1>" })).json();
    assert.equal(other.cached, false);
  } finally {
    await t.close();
  }
});

Deno.test("bad values of every new field are 400 envelopes with a hint, never a capture", async () => {
  const t = await createCaptureApp();
  try {
    const cases: [Record<string, unknown>, ErrorCode, RegExp][] = [
      [{ url: URL_A, format: "tiff" }, "unsupported_value", /png, jpeg, webp, pdf, mp4/],
      [{ url: URL_A, format: "pdf", fullPage: true }, "invalid_request", /whole document/],
      [{ url: URL_A, format: "markdown", scale: 2 }, "invalid_request", /scale/],
      [{ url: URL_A, format: "mp4", quality: 80 }, "invalid_request", /recording/],
      [{ url: URL_A, pdf: { paper: "A4" } }, "invalid_request", /format "pdf"/],
      [{ url: URL_A, format: "pdf", pdf: { paper: "A5" } }, "unsupported_value", /Letter/],
      [{ url: URL_A, format: "pdf", pdf: { margin: "1em" } }, "invalid_request", /mm/],
      [{ url: URL_A, format: "pdf", pdf: { margin: "3in" } }, "invalid_request", /192 px/],
      [{ url: URL_A, format: "pdf", pdf: { scale: 3 } }, "invalid_request", /scale/],
      [{ url: URL_A, format: "pdf", pdf: { pageRanges: "1-2; rm" } }, "invalid_request", /1-3/],
      [
        { url: URL_A, format: "pdf", pdf: { onePage: true, pageRanges: "1" } },
        "invalid_request",
        /no pages to pick/,
      ],
      [{ url: URL_A, format: "gif", recording: { fps: 5 } }, "invalid_request", /fps/],
      [{ url: URL_A, recording: { fps: 30 } }, "invalid_request", /mp4/],
      [
        { url: URL_A, format: "mp4", recording: { durationMs: 30000, fps: 60 } },
        "invalid_request",
        /at most 900 frames/,
      ],
      [
        { url: URL_A, format: "webm", width: 1920, height: 1080, recording: { durationMs: 30000 } },
        "invalid_request",
        /width x height/,
      ],
      [{ url: URL_A, quality: 80 }, "invalid_request", /jpeg.*webp/],
      [{ url: URL_A, format: "webp", quality: 0 }, "invalid_request", /quality/],
      [{ url: URL_A, format: "jpeg", transparent: true }, "invalid_request", /alpha/],
      [{ url: URL_A, html: "<p>x</p>" }, "invalid_request", /exactly one/],
      [{}, "invalid_request", /exactly one/],
      [{ html: "" }, "invalid_request", /html/],
      [{ html: "x".repeat(2 * 1024 * 1024 + 1) }, "invalid_request", /html/],
      [{ url: URL_A, userAgent: "a\r\nX-Evil: 1" }, "invalid_request", /userAgent/],
      [{ url: URL_A, userAgent: "a".repeat(513) }, "invalid_request", /userAgent/],
      [{ url: URL_A, locale: "not a locale!" }, "invalid_request", /de-DE/],
      [{ url: URL_A, timezone: "Mars/Olympus" }, "invalid_request", /Europe\/Berlin/],
      [{ url: URL_A, timezone: "+01:00" }, "invalid_request", /IANA/],
      [{ url: URL_A, media: "tv" }, "unsupported_value", /screen, print/],
      [{ url: URL_A, javaScript: "no" }, "invalid_request", /javaScript/],
      [{ url: URL_A, blockResources: ["document"] }, "unsupported_value", /image/],
      [{ url: URL_A, blockRequests: ["*example.com/*"] }, "invalid_request", /page itself/],
      [{ url: URL_A, blockRequests: Array(51).fill("*.js") }, "invalid_request", /blockRequests/],
      [{ url: URL_A, clip: { x: 0, y: 0, width: 0, height: 10 } }, "invalid_request", /clip/],
      [
        { url: URL_A, selector: "main", clip: { x: 0, y: 0, width: 10, height: 10 } },
        "invalid_request",
        /selector/,
      ],
    ];
    for (const [body, code, hint] of cases) {
      const envelope = await assertEnvelope(t.app, await t.shoot(body), 400, code);
      const text = `${envelope.error} ${envelope.hint}`;
      assert.match(text, hint, JSON.stringify(body).slice(0, 80));
    }
    assert.equal(t.capture.jobs.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("Accept picks raw bytes and the format; a contradicting image Accept is a 400", async () => {
  const t = await createCaptureApp();
  try {
    const accept = (value: string, body: Record<string, unknown> = {}) =>
      t.shoot({ url: URL_A, ...body }, { headers: { accept: value } });
    const png = await accept("image/png");
    assert.equal(png.status, 200);
    assert.equal(png.headers.get("content-type"), "image/png");
    assert.equal(png.headers.get("x-image-width"), "1920");
    assert.equal(png.headers.get("x-image-height"), "1080");
    assert.equal(png.headers.get("x-cache"), "miss");
    assert.equal(png.headers.get("age"), "0");
    const bytes = new Uint8Array(await png.arrayBuffer());
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    await accept("image/jpeg").then((r) => r.body?.cancel());
    assert.deepEqual(t.capture.jobs.at(-1)!.options, { format: "jpeg", quality: 80 });
    const wildcard = await accept("image/*", { format: "png" });
    assert.equal(wildcard.headers.get("content-type"), "image/png");
    await wildcard.body?.cancel();
    const json = await accept("application/json, image/png;q=0.5");
    assert.match(json.headers.get("content-type") ?? "", /^application\/json/);
    await json.body?.cancel();
    const before = t.capture.jobs.length;
    const envelope = await assertEnvelope(
      t.app,
      await accept("image/png", { format: "webp" }),
      400,
      "invalid_request",
    );
    assert.match(String(envelope.hint), /image\/webp/);
    assert.equal(t.capture.jobs.length, before, "refused before any render");
  } finally {
    await t.close();
  }
});

Deno.test("blockRequests patterns match whole URLs, a star for any run of characters", () => {
  const url = "https://fonts.example.com/css/a.woff2?v=1";
  assert.ok(matchesPattern("*://fonts.example.com/*", url));
  assert.ok(matchesPattern("*.woff2*", url));
  assert.ok(!matchesPattern("*.woff2", url));
  assert.ok(matchesPattern(url, url));
  assert.ok(!matchesPattern("https://fonts.example.com", url));
  assert.ok(matchesPattern("*a*a*a*", "banana"));
  assert.ok(!matchesPattern("*a*a*a*a*", "banana"));
  assert.ok(!matchesPattern("ab*ba", "aba"), "prefix and suffix may not overlap");
  // Many stars against a long URL stay linear: no backtracking blow-up.
  assert.ok(!matchesPattern(`${"*a".repeat(200)}*b`, `https://x/${"a".repeat(8000)}`));
});

const NEW_FIELDS: Record<string, unknown[]> = {
  html: ["<p>x</p>", "", " "],
  format: ["png", "jpeg", "webp", "gif", "JPEG"],
  quality: [1, 80, 100, 0, 101, 50.5, "80"],
  userAgent: ["Probe/1", "", "a\nb", "ü"],
  locale: ["de-DE", "en", "x", "zz-ZZZZZZZZZ", "de_DE", ""],
  timezone: ["UTC", "Europe/Berlin", "+01:00", "Etc/GMT+1", "../etc", ""],
  reducedMotion: [true, false, "true"],
  media: ["screen", "print", "tv"],
  javaScript: [true, false, 0],
  blockResources: [["font"], ["document"], [], "image", [1]],
  blockRequests: [["*.js"], ["*"], [""], ["*a.com/*"], "x"],
  clip: [{ x: 0, y: 0, width: 10, height: 10 }, { x: -1, y: 0, width: 1, height: 1 }, [], null],
};

Deno.test("any mix of the new fields is a 200 or a 4xx envelope, never a 5xx", async () => {
  const t = await createCaptureApp();
  try {
    const field = (values: unknown[]) =>
      fc.option(fc.oneof(fc.constantFrom(...values), fc.jsonValue({ maxDepth: 1 })), {
        nil: undefined,
      });
    const bodies = fc.record(
      Object.fromEntries(Object.entries(NEW_FIELDS).map(([k, v]) => [k, field(v)])),
    );
    await fc.assert(
      fc.asyncProperty(bodies, fc.boolean(), async (fields, withUrl) => {
        const response = await t.shoot({ ...(withUrl ? { url: URL_A } : {}), ...fields });
        if (response.status === 200) return void await response.body?.cancel();
        assert.ok(response.status >= 400 && response.status < 500, `${response.status}`);
        await assertEnvelope(
          t.app,
          response,
          response.status,
          (await response.clone().json()).code,
        );
      }),
      { numRuns: 300 },
    );
  } finally {
    await t.close();
  }
});
