import assert from "node:assert/strict";
import { createChromiumCapturer } from "../../lib/capture/local/capturer.ts";
import type { CaptureJob } from "../../lib/capture/types.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { createTestApp } from "../../testing/app.ts";
import { servePages } from "../../testing/capture_fixtures.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { captureAnswer } from "../../testing/capture_answer.ts";

const job = (url: string): CaptureJob => ({ url, deviceType: "desktop", colorScheme: "light" });

/** A port nothing listens on (bound, then released). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

Deno.test("load failures become API errors whose hint says what happened", async (t) => {
  const pages = servePages({
    "/download": () =>
      new Response("a,b\n1,2\n", {
        headers: {
          "content-type": "text/csv",
          "content-disposition": "attachment; filename=x.csv",
        },
      }),
    "/loop": () => new Response(null, { status: 302, headers: { location: "/loop" } }),
  });
  const capturer = createChromiumCapturer({
    timeoutMs: 10_000,
    allowPrivateNetwork: true,
    log: createMemoryLogger(),
  });
  try {
    await t.step("connection refused", async () => {
      const error = await captureAnswer(capturer.capture(job(`http://127.0.0.1:${closedPort()}/`)));
      assert.equal(error.status, 500);
      assert.equal(error.code, "upstream_failed");
      assert.match(error.hint, /connection refused/);
    });
    await t.step("TLS handshake with a server that does not speak TLS", async () => {
      const error = await captureAnswer(capturer.capture(job(`https://127.0.0.1:${pages.port}/`)));
      assert.equal(error.status, 500);
      assert.equal(error.code, "upstream_failed");
      assert.match(error.message, /TLS/);
      assert.match(error.hint, /ERR_SSL_PROTOCOL_ERROR/);
    });
    await t.step("a download instead of a page", async () => {
      const error = await captureAnswer(capturer.capture(job(`${pages.origin}/download`)));
      assert.equal(error.code, "upstream_failed");
      assert.match(error.hint, /download/);
    });
    await t.step("a redirect loop", async () => {
      const error = await captureAnswer(capturer.capture(job(`${pages.origin}/loop`)));
      assert.equal(error.code, "upstream_failed");
      assert.match(error.hint, /ERR_TOO_MANY_REDIRECTS/);
    });
    await t.step("the backend still captures after all of that", async () => {
      const result = await capturer.capture(job(`${pages.origin}/`));
      assert.equal(result.targetStatus, 200);
    });
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("a document that never arrives times out with 408 upstream_timeout", async () => {
  const pages = servePages();
  const capturer = createChromiumCapturer({
    timeoutMs: 1_500,
    allowPrivateNetwork: true,
    log: createMemoryLogger(),
  });
  try {
    const error = await captureAnswer(capturer.capture(job(`${pages.origin}/hang`)));
    assert.equal(error.status, 408);
    assert.equal(error.code, "upstream_timeout");
    assert.match(error.hint, /1500 ms/);
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("through the API an unreachable target is an envelope, never Chromium's error page", async () => {
  const pages = servePages();
  const t = await createTestApp({
    env: { ALLOW_PRIVATE_NETWORK: "true", RATE_LIMIT_PER_MINUTE: "1000" },
  });
  try {
    const response = await t.app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${closedPort()}/` }),
    });
    const body = await assertEnvelope(t.app, response, 500, "upstream_failed");
    assert.match(String(body.hint), /connection refused/);
    assert.equal(body.screenshot, undefined);
  } finally {
    await t.close();
    await pages.close();
  }
});

Deno.test("without a browser the backend is down and captures answer 503 with an install hint", async () => {
  const capturer = createChromiumCapturer({
    chromePath: "/nonexistent/chromium",
    timeoutMs: 5_000,
    allowPrivateNetwork: false,
    log: createMemoryLogger(),
  });
  try {
    assert.deepEqual(capturer.status(), [
      { name: "chromium-local", state: "down", detail: "not started", sandbox: null },
    ]);
    await capturer.start();
    const error = await captureAnswer(capturer.capture(job("https://example.com/")));
    assert.equal(error.status, 503);
    assert.equal(error.code, "upstream_unavailable");
    assert.match(error.hint, /apt-get install chromium/);
    assert.match(error.hint, /CHROME_PATH/);
    assert.match(error.hint, /BROWSER_WS_ENDPOINT/);
    assert.ok(Number(error.headers["Retry-After"]) > 0);
    const [status] = capturer.status();
    assert.equal(status.state, "down");
    assert.match(status.detail ?? "", /CHROME_PATH=\/nonexistent\/chromium/);
    assert.equal(capturer.browserPid(), undefined);
  } finally {
    await capturer.close();
  }
});
