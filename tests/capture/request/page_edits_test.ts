/**
 * styles, clickSelector, removeSelectors and transparent through the route with a test capturer: limits,
 * the jobs the capturer gets, and their place in the cache key.
 */
import assert from "node:assert/strict";
import { MAX_STYLES_BYTES, optionsDigest } from "../../../lib/capture/request/options.ts";
import { createCaptureApp } from "../../../testing/capture_app.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";

const URL_A = "https://example.com/a";

Deno.test("styles, clickSelector and removeSelectors reach the capturer and the key", async () => {
  const t = await createCaptureApp();
  try {
    const body = {
      url: URL_A,
      styles: "h1 { color: red }",
      clickSelector: "#more",
      removeSelectors: [".promo"],
    };
    const res = await t.shoot({ ...body, removeSelectors: [".promo"] });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal((await res.json()).cached, false);
    assert.deepEqual(t.capture.jobs[0].options, {
      clickSelector: "#more",
      removeSelectors: [".promo"],
      styles: "h1 { color: red }",
    });
    const again = await t.shoot(body);
    assert.equal((await again.json()).cached, true);
    const plain = await t.shoot({ url: URL_A, removeSelectors: [] });
    assert.equal((await plain.json()).cached, false, "an empty list is no option");
    assert.deepEqual(t.capture.jobs[1], {
      url: URL_A,
      deviceType: "desktop",
      colorScheme: "light",
    });
    assert.equal(await optionsDigest({ transparent: false }), null, "the default is no option");
    assert.match(String(await optionsDigest({ transparent: true })), /^[0-9a-f]{32}$/);
    assert.notEqual(
      await optionsDigest({ styles: "a{}" }),
      await optionsDigest({ styles: "b{}" }),
    );
  } finally {
    await t.close();
  }
});

Deno.test("bad styles, clickSelector and removeSelectors are 400s", async () => {
  const t = await createCaptureApp();
  try {
    const cases: Record<string, unknown>[] = [
      { styles: "" },
      { styles: "a".repeat(MAX_STYLES_BYTES + 1) },
      // Multi-byte text counts in bytes: 6000 three-byte characters are over 16 KiB.
      { styles: "€".repeat(6000) },
      { styles: 1 },
      { clickSelector: "" },
      { clickSelector: "a".repeat(257) },
      { removeSelectors: ".a" },
      { removeSelectors: Array.from({ length: 21 }, (_, i) => `.a${i}`) },
      { transparent: "yes" },
    ];
    for (const body of cases) {
      const envelope = await assertEnvelope(
        t.app,
        await t.shoot({ url: URL_A, ...body }),
        400,
        "invalid_request",
      );
      assert.match(String(envelope.message), new RegExp(Object.keys(body)[0]));
    }
    assert.equal(t.capture.jobs.length, 0);
    const ok = await t.shoot({ url: URL_A, styles: "a".repeat(MAX_STYLES_BYTES) });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("hideAnnoyances answers 503 naming ANNOYANCE_LIST_URLS while no list is loaded", async () => {
  const t = await createCaptureApp();
  try {
    const res = await t.shoot({ url: URL_A, hideAnnoyances: true });
    const body = await assertEnvelope(t.app, res, 503, "upstream_unavailable");
    assert.match(String(body.hint), /ANNOYANCE_LIST_URLS/);
    assert.equal(t.capture.jobs.length, 0);
  } finally {
    await t.close();
  }
});
