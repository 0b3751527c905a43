import assert from "node:assert/strict";
import { SCREENSHOT_BODY_LIMIT } from "../../lib/capture/mod.ts";
import { ApiError } from "../../lib/errors.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";

Deno.test("bad requests are refused with the right code before any capture", async () => {
  const t = await createCaptureApp();
  try {
    const cases: Array<[unknown, number, Parameters<typeof assertEnvelope>[3]]> = [
      [{}, 400, "invalid_request"],
      [{ deviceType: "mobile" }, 400, "invalid_request"],
      ["[]", 400, "invalid_request"],
      ["null", 400, "invalid_request"],
      ['{"url": "https://example.com"', 400, "invalid_request"],
      [{ url: 42 }, 400, "invalid_url"],
      [{ url: null }, 400, "invalid_url"],
      [{ url: "" }, 400, "invalid_url"],
      [{ url: "example.com" }, 400, "invalid_url"],
      [{ url: "file:///etc/passwd" }, 400, "invalid_url"],
      [{ url: "javascript:alert(1)" }, 400, "invalid_url"],
      [{ url: "https://user:pw@example.com/" }, 400, "invalid_url"],
      [{ url: "http://2130706433/" }, 400, "invalid_url"],
      [{ url: "http://[::ffff:127.0.0.1]/" }, 400, "invalid_url"],
      [{ url: "http://127.0.0.1:8000/" }, 400, "invalid_url"],
      [{ url: "http://169.254.169.254/" }, 400, "invalid_url"],
      [{ url: "https://example.com", deviceType: "tablet" }, 400, "unsupported_value"],
      [{ url: "https://example.com", colorScheme: "blue" }, 400, "unsupported_value"],
      [{ url: "https://example.com", forceRefresh: "yes" }, 400, "invalid_request"],
      [{ url: `https://example.com/${"a".repeat(70_000)}` }, 400, "invalid_url"],
      [{ html: "x".repeat(SCREENSHOT_BODY_LIMIT) }, 413, "invalid_request"],
    ];
    for (const [body, status, code] of cases) {
      const res = await t.shoot(body);
      const envelope = await assertEnvelope(t.app, res, status, code);
      assert.ok(String(envelope.hint).length > 0, JSON.stringify(body).slice(0, 80));
    }
    assert.equal(t.capture.jobs.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("a body that is not JSON is refused as invalid_request", async () => {
  const t = await createCaptureApp();
  try {
    const plain = await t.app.request("/api/screenshot", {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "https://example.com",
    });
    await assertEnvelope(t.app, plain, 400, "invalid_request");
    const none = await t.app.request("/api/screenshot", { method: "POST" });
    await assertEnvelope(t.app, none, 400, "invalid_request");
  } finally {
    await t.close();
  }
});

Deno.test("private targets are accepted when ALLOW_PRIVATE_NETWORK is on", async () => {
  const t = await createCaptureApp({ env: { ALLOW_PRIVATE_NETWORK: "true" } });
  try {
    const res = await t.shoot({ url: "http://127.0.0.1:8000/page" });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).url, "http://127.0.0.1:8000/page");
    await assertEnvelope(t.app, await t.shoot({ url: "http://127.1/" }), 400, "invalid_url");
  } finally {
    await t.close();
  }
});

Deno.test("capture failures come back as their envelopes", async () => {
  const t = await createCaptureApp();
  try {
    const failures: Array<[ApiError, number]> = [
      [new ApiError(408, "upstream_timeout", "The page did not load in 15000 ms."), 408],
      [new ApiError(500, "upstream_failed", "The connection was refused."), 500],
      [new ApiError(503, "upstream_unavailable", "No browser could be started."), 503],
      [new ApiError(400, "invalid_url", "The name does not resolve."), 400],
    ];
    for (const [error, status] of failures) {
      t.capture.failWith = error;
      const res = await t.shoot({ url: "https://example.com/" });
      const body = await assertEnvelope(t.app, res, status, error.code);
      assert.equal(body.error, error.message);
    }
    t.capture.failWith = new TypeError("boom at chromium_capturer.ts:12");
    const res = await t.shoot({ url: "https://example.com/" });
    const body = await assertEnvelope(t.app, res, 500, "upstream_failed");
    assert.doesNotMatch(JSON.stringify(body), /boom|chromium_capturer/);
  } finally {
    await t.close();
  }
});

Deno.test("a capture queue past its time budget answers 503 with Retry-After", async () => {
  const t = await createCaptureApp({
    env: { MAX_CONCURRENT_CAPTURES: "1", CAPTURE_TIMEOUT_MS: "5000" },
  });
  try {
    t.capture.hold();
    const settled: Response[] = [];
    // Admission is by expected wait: at the prior estimate of 1 s a render and one slot, five
    // fit in the 5 s budget (one renders, four wait); the other five would wait too long.
    const pending = Array.from(
      { length: 10 },
      (_, i) =>
        t.shoot({ url: `https://example.com/${i}` }).then((res) => (settled.push(res), res)),
    );
    for (let i = 0; i < 1000 && settled.length < 5; i++) {
      await new Promise((r) => setTimeout(r, 0));
    }
    assert.equal(settled.length, 5);
    t.capture.release();
    const responses = await Promise.all(pending);
    const full = responses.filter((r) => r.status === 503);
    assert.equal(full.length, 5);
    for (const res of full) {
      const retryAfter = res.headers.get("retry-after");
      assert.match(retryAfter ?? "", /^[1-9]\d*$/);
      const body = await assertEnvelope(t.app, res, 503, "upstream_unavailable");
      assert.match(String(body.hint), new RegExp(`${retryAfter} seconds`));
    }
    for (const res of responses.filter((r) => r.status !== 503)) {
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    assert.equal(t.capture.jobs.length, 5);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/screenshot answers 405 with Allow: POST", async () => {
  const t = await createCaptureApp();
  try {
    const res = await t.app.request("/api/screenshot");
    await assertEnvelope(t.app, res, 405, "method_not_allowed");
    assert.equal(res.headers.get("allow"), "POST, OPTIONS");
  } finally {
    await t.close();
  }
});

Deno.test("the capture operation is documented in /openapi.json and /llms.txt", async () => {
  const t = await createCaptureApp();
  try {
    const document = await (await t.app.request("/openapi.json")).json();
    const post = document.paths["/api/screenshot"].post;
    assert.equal(post.operationId, "captureScreenshot");
    assert.deepEqual(
      Object.keys(post.responses).sort(),
      ["200", "400", "405", "408", "413", "429", "500", "502", "503"],
    );
    assert.ok(post.responses["200"].headers["X-RateLimit-Remaining"]);
    assert.ok(post.responses["200"].headers["X-Cache"]);
    assert.equal(document.paths["/api/screenshot"].get.operationId, "captureScreenshotMethodProbe");
    const request = document.components.schemas.ScreenshotRequest;
    // Exactly one of url and html: neither is required by the schema alone (the route says 400).
    assert.equal(request.required, undefined);
    assert.ok(request.properties.url && request.properties.html);
    assert.deepEqual(
      Object.keys(post.responses["200"].content).sort(),
      [
        "application/json",
        "application/pdf",
        "image/gif",
        "image/jpeg",
        "image/png",
        "image/webp",
        "text/html",
        "text/markdown",
        "video/mp4",
        "video/webm",
      ],
    );
    assert.deepEqual(request.example, {
      url: "https://example.com",
      deviceType: "desktop",
      colorScheme: "light",
    });
    assert.ok(document.components.schemas.ScreenshotResponse);
    const llms = await (await t.app.request("/llms.txt")).text();
    assert.ok(llms.includes(`-d '{"url":"https://example.com","deviceType":"desktop",`));
  } finally {
    await t.close();
  }
});
