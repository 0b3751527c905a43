/**
 * Options that contradict each other (lib/capture/request/exclusive.ts), through the route with a
 * test capturer: every refused pair is a 400 `invalid_request` naming both fields, before any
 * capture; pairs that combine are captured; the published field descriptions name each other.
 */
import assert from "node:assert/strict";
import { EXCLUSIVE_PAIRS } from "../../../lib/capture/request/exclusive.ts";
import { createCaptureApp } from "../../../testing/capture_app.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";

const URL_A = "https://example.com/a";
const HTML = "<h1>Invoice</h1>";
const CLIP = { x: 0, y: 0, width: 100, height: 50 };

/** A request sending both sides of one pair; every pair of the table has at least one. */
const REFUSED: [fields: [string, string], body: Record<string, unknown>][] = [
  [["selector", "clip"], { url: URL_A, selector: "main", clip: CLIP }],
  [["selector", "fullPage"], { url: URL_A, selector: "main", fullPage: true }],
  [["clip", "fullPage"], { url: URL_A, clip: CLIP, fullPage: true }],
  [["quality", "format"], { url: URL_A, quality: 80 }],
  [["quality", "format"], { url: URL_A, format: "png", quality: 80 }],
  [["transparent", "format"], { url: URL_A, format: "jpeg", transparent: true }],
  [["html", "failOnHttpError"], { html: HTML, failOnHttpError: true }],
  [["html", "cookies"], { html: HTML, cookies: [{ name: "session", value: "abc" }] }],
  [["html", "headers"], { html: HTML, headers: { Authorization: "Bearer x" } }],
  [["locale", "headers"], { url: URL_A, locale: "de-DE", headers: { "accept-language": "fr" } }],
  [["scripts", "javaScript"], { html: HTML, scripts: ["1"], javaScript: false }],
  [["forceRefresh", "maxAge"], { url: URL_A, forceRefresh: true, maxAge: 60 }],
  [
    ["forceRefresh", "staleWhileRevalidate"],
    { url: URL_A, forceRefresh: true, maxAge: 0, staleWhileRevalidate: true },
  ],
];

/** Pairs that combine sensibly (an override documented as such, or both sides applied). */
const ACCEPTED: Record<string, unknown>[] = [
  { url: URL_A, selector: "main", fullPage: false },
  { url: URL_A, clip: CLIP, scale: 2 },
  { url: URL_A, selector: "main", transparent: true, clickSelector: "#more" },
  { url: URL_A, fullPage: true, settle: false, delayMs: 10, clickSelector: "#more" },
  { url: URL_A, device: "iphone-15", width: 500, height: 800, scale: 2 },
  { url: URL_A, device: "laptop", userAgent: "Shotline-Test/1.0" },
  { url: URL_A, deviceType: "mobile", width: 800 },
  // Small images: the test capturer's PNG is re-encoded by the export codecs.
  { url: URL_A, deviceType: "mobile", format: "jpeg", quality: 60 },
  { url: URL_A, deviceType: "mobile", format: "webp", transparent: true, quality: 90 },
  { url: URL_A, forceRefresh: true, maxAge: 0 },
  { url: URL_A, maxAge: 60, staleWhileRevalidate: true },
  { url: URL_A, locale: "de-DE", timezone: "Europe/Berlin", headers: { "X-Test": "1" } },
  { url: URL_A, javaScript: false, blockResources: ["script"], waitForSelector: "main" },
  { url: URL_A, colorScheme: "dark", media: "print", reducedMotion: true },
  { html: HTML, forceRefresh: true, transparent: true, blockRequests: ["*.woff2"] },
];

Deno.test("every pair of contradicting options is a 400 naming both fields", async () => {
  const t = await createCaptureApp();
  try {
    for (const [fields, body] of REFUSED) {
      const response = await t.shoot(body);
      const envelope = await assertEnvelope(t.app, response, 400, "invalid_request");
      const label = JSON.stringify(body);
      for (const field of fields) assert.match(String(envelope.message), new RegExp(field), label);
      assert.match(String(envelope.message), /cannot be combined/, label);
      assert.ok(String(envelope.hint).length > 0, label);
    }
    assert.equal(t.capture.jobs.length, 0, "nothing contradictory is captured");
    const covered = new Set(REFUSED.map(([fields]) => fields.join("+")));
    for (const pair of EXCLUSIVE_PAIRS) {
      assert.ok(covered.has(pair.fields.join("+")), `a case for ${pair.fields.join(" + ")}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("a pair is refused in either spelling and ahead of the other checks", async () => {
  const t = await createCaptureApp();
  try {
    // Field order in the body does not matter, and the url is not looked at first.
    const response = await t.shoot({ fullPage: true, clip: CLIP, url: "not a url" });
    const envelope = await assertEnvelope(t.app, response, 400, "invalid_request");
    assert.equal(envelope.message, "clip and fullPage cannot be combined.");
    assert.match(String(envelope.hint), /Send one of them/);
  } finally {
    await t.close();
  }
});

Deno.test("options that combine are captured", async () => {
  const t = await createCaptureApp();
  try {
    for (const [i, body] of ACCEPTED.entries()) {
      // A URL of its own each, so none is answered from another's cache entry.
      const response = await t.shoot(body.url ? { ...body, url: `${URL_A}?${i}` } : body);
      const text = await response.text();
      assert.equal(response.status, 200, `${JSON.stringify(body)}: ${text.slice(0, 300)}`);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal(typeof JSON.parse(text).screenshot, "string");
    }
    assert.equal(t.capture.jobs.length, ACCEPTED.length);
  } finally {
    await t.close();
  }
});

Deno.test("the published description of each field names the fields it excludes", async () => {
  const t = await createCaptureApp();
  try {
    const response = await t.app.request("/openapi.json");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    const document = await response.json();
    const properties = document.components.schemas.ScreenshotRequest.properties as Record<
      string,
      { description?: string }
    >;
    for (const { fields: [a, b] } of EXCLUSIVE_PAIRS) {
      assert.match(properties[a].description ?? "", new RegExp(`\\b${b}\\b`), `${a} names ${b}`);
      assert.match(properties[b].description ?? "", new RegExp(`\\b${a}\\b`), `${b} names ${a}`);
    }
  } finally {
    await t.close();
  }
});
