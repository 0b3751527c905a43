/**
 * httpStatus and failOnHttpError through the route with a test capturer: the status in every
 * response, the 502 for an error page, and that a refused error page is never cached.
 */
import assert from "node:assert/strict";
import { createCaptureApp } from "../../../testing/capture_app.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";
import { solidCapturer } from "../../../testing/solid_capturer.ts";

const URL_A = "https://example.com/a";

Deno.test("httpStatus is the target's status, fresh and cached", async () => {
  const t = await createCaptureApp({ deps: { capture: solidCapturer({ targetStatus: 404 }) } });
  try {
    for (const cached of [false, true]) {
      const res = await t.shoot({ url: URL_A });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      const json = await res.json();
      assert.equal(json.cached, cached);
      assert.equal(json.httpStatus, 404);
    }
  } finally {
    await t.close();
  }
});

Deno.test("httpStatus is absent when the status is unknown", async () => {
  const t = await createCaptureApp({ deps: { capture: solidCapturer({ targetStatus: null }) } });
  try {
    const res = await t.shoot({ url: URL_A });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).httpStatus, undefined);
  } finally {
    await t.close();
  }
});

Deno.test("failOnHttpError: a 404 page is a 502 naming the status, and is not cached", async () => {
  const capture = solidCapturer({ targetStatus: 404 });
  const t = await createCaptureApp({ deps: { capture } });
  try {
    for (let i = 0; i < 2; i++) {
      const res = await t.shoot({ url: URL_A, failOnHttpError: true });
      const body = await assertEnvelope(t.app, res, 502, "upstream_failed");
      assert.match(String(body.hint), /404/);
    }
    assert.equal(capture.jobs.length, 2, "the refused render was not cached");
    assert.deepEqual(capture.jobs[0], { url: URL_A, deviceType: "desktop", colorScheme: "light" });
    // Without the flag the page is captured (and cached); with it, that cached page is refused.
    const plain = await t.shoot({ url: URL_A });
    assert.equal(plain.status, 200);
    assert.equal((await plain.json()).cached, false);
    const again = await t.shoot({ url: URL_A, failOnHttpError: true });
    await assertEnvelope(t.app, again, 502, "upstream_failed");
    assert.equal(capture.jobs.length, 3);
  } finally {
    await t.close();
  }
});

Deno.test("failOnHttpError on a 200 page captures and caches as usual", async () => {
  const t = await createCaptureApp();
  try {
    for (const cached of [false, true]) {
      const res = await t.shoot({ url: URL_A, failOnHttpError: true });
      assert.equal(res.status, 200);
      const json = await res.json();
      assert.equal(json.cached, cached);
      assert.equal(json.httpStatus, 200);
    }
    const res = await t.shoot({ url: URL_A, failOnHttpError: "yes" });
    await assertEnvelope(t.app, res, 400, "invalid_request");
  } finally {
    await t.close();
  }
});
