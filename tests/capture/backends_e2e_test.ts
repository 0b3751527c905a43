/**
 * Local and remote backends together: the local Chromium first, a remote one (a second
 * Chromium started by the test) when the local one cannot run, 503 with Retry-After when none
 * can, and reconnection once the remote browser is back.
 */
import assert from "node:assert/strict";
import { chainCapturers, createCaptureBackends } from "../../lib/capture/backends.ts";
import { createChromiumCapturer } from "../../lib/capture/local/capturer.ts";
import { createRemoteCapturer } from "../../lib/capture/remote/capturer.ts";
import type { CaptureJob, Capturer } from "../../lib/capture/types.ts";
import { parseConfig } from "../../lib/config.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { createTestApp } from "../../testing/app.ts";
import { servePages } from "../../testing/capture_fixtures.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { startRemoteChromium } from "../../testing/remote_chromium.ts";
import { BROWSER_WAIT_MS, eventually } from "../../testing/wait.ts";
import { captureAnswer } from "../../testing/capture_answer.ts";

// Reconnection attempts every 0.1-0.4 s, so the tests see a restarted browser quickly.
const BACKOFF = { minMs: 100, maxMs: 400 };

const job = (url: string): CaptureJob => ({ url, deviceType: "desktop", colorScheme: "light" });

const stateOf = (capturer: Capturer, name: string) =>
  capturer.status().find((s) => s.name === name)?.state;

function shoot(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  url: string,
) {
  return app.request("/api/screenshot", {
    method: "POST",
    headers: { "content-type": "application/json" },
    // Always a fresh render: these tests are about backends, not the cache.
    body: JSON.stringify({ url, forceRefresh: true }),
  });
}

Deno.test("a local browser that cannot start hands captures to the remote; none left is a 503", async () => {
  await using remote = await startRemoteChromium();
  const pages = servePages();
  const t = await createTestApp({
    env: {
      CHROME_PATH: "/nonexistent/chromium",
      BROWSER_WS_ENDPOINT: remote.endpoint,
      ALLOW_PRIVATE_NETWORK: "true",
      RATE_LIMIT_PER_MINUTE: "1000",
    },
  });
  try {
    const response = await shoot(t.app, `${pages.origin}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal((await response.json()).strategy, "chromium-remote");

    const health = await (await t.app.request("/healthz")).json();
    assert.deepEqual(
      health.capture.map((s: { name: string; state: string }) => [s.name, s.state]),
      [
        ["chromium-local", "down"],
        ["chromium-remote", "ready"],
      ],
    );
    // No endpoint host or port, no error text for anonymous callers; the status keeps them.
    assert.doesNotMatch(JSON.stringify(health), new RegExp(`${remote.port}|nonexistent`));
    assert.match(t.deps.capture.status()[0].detail ?? "", /CHROME_PATH=\/nonexistent\/chromium/);
    assert.equal(t.deps.capture.status()[1].detail, `127.0.0.1:${remote.port}`);

    await remote.kill();
    await eventually(() => stateOf(t.deps.capture, "chromium-remote") !== "ready", "remote down");
    const down = await shoot(t.app, `${pages.origin}/`);
    const retryAfter = Number(down.headers.get("retry-after"));
    const body = await assertEnvelope(t.app, down, 503, "upstream_unavailable");
    assert.equal(body.error, "No browser is available to render the page.");
    assert.match(String(body.hint), /\/healthz/);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${retryAfter}`);
  } finally {
    await t.close();
    await pages.close();
  }
});

Deno.test("local first; only its unavailability moves a capture to the remote browser", async (t) => {
  await using remote = await startRemoteChromium();
  let onceCalls = 0;
  const pages = servePages({
    // The first load hangs (the local browser will crash under it); a retry is answered.
    "/once": async (_request, hold) => {
      if (++onceCalls === 1) await hold();
      return new Response("<body style='margin:0;background:#00ff00'>", {
        headers: { "content-type": "text/html" },
      });
    },
  });
  const log = createMemoryLogger();
  const common = { timeoutMs: 3_000, allowPrivateNetwork: true, log };
  const local = createChromiumCapturer(common);
  const remoteCapturer = createRemoteCapturer({
    ...common,
    endpoints: [remote.endpoint],
    backoff: BACKOFF,
  });
  const chain = chainCapturers([local, remoteCapturer], log);
  try {
    await t.step("the local browser serves while it runs", async () => {
      assert.equal((await chain.capture(job(`${pages.origin}/`))).strategy, "chromium-local");
    });
    await t.step("a page that times out is answered 408 and not retried remotely", async () => {
      const error = await captureAnswer(chain.capture(job(`${pages.origin}/hang`)));
      assert.equal(error.status, 408);
      assert.equal(pages.hits.get("/hang"), 1);
      assert.equal(stateOf(remoteCapturer, "chromium-remote"), "down", "remote never used");
    });
    await t.step("a local crash mid-capture: the remote browser renders it", async () => {
      const pid = local.browserPid()!;
      const result = chain.capture(job(`${pages.origin}/once`));
      await eventually(() => onceCalls === 1, "the local browser is loading the page", {
        timeoutMs: BROWSER_WAIT_MS,
      });
      Deno.kill(pid, "SIGKILL");
      assert.equal((await result).strategy, "chromium-remote");
      assert.equal(onceCalls, 2);
      assert.ok(
        log.lines.some((l) => l.msg === "capture backend unavailable; trying the next one"),
      );
    });
    await t.step("the remote browser dies: the (relaunched) local one keeps serving", async () => {
      await remote.kill();
      await eventually(() => stateOf(chain, "chromium-remote") !== "ready", "remote down");
      assert.equal((await chain.capture(job(`${pages.origin}/`))).strategy, "chromium-local");
      assert.equal(stateOf(chain, "chromium-local"), "ready");
    });
  } finally {
    await chain.close();
    await pages.close();
  }
});

Deno.test("remote only: 503 with Retry-After while the browser is down, captures again after a restart", async () => {
  await using remote = await startRemoteChromium();
  const pages = servePages();
  const env = { BROWSER_WS_ENDPOINT: remote.endpoint, ALLOW_PRIVATE_NETWORK: "true" };
  const log = createMemoryLogger();
  // As on Deno Deploy: endpoints and no Chromium on this machine.
  const capture = createCaptureBackends({
    config: parseConfig(env),
    log,
    backoff: BACKOFF,
    localChromiumFound: () => false,
  });
  const t = await createTestApp({
    env: { ...env, RATE_LIMIT_PER_MINUTE: "1000" },
    deps: { capture },
  });
  try {
    await capture.start();
    assert.deepEqual(capture.status().map((s) => [s.name, s.state]), [[
      "chromium-remote",
      "ready",
    ]]);
    const first = await shoot(t.app, `${pages.origin}/`);
    assert.equal(first.status, 200);
    assert.equal((await first.json()).strategy, "chromium-remote");

    await remote.kill();
    await eventually(() => stateOf(capture, "chromium-remote") !== "ready", "remote down");
    const down = await shoot(t.app, `${pages.origin}/`);
    const retryAfter = Number(down.headers.get("retry-after"));
    const body = await assertEnvelope(t.app, down, 503, "upstream_unavailable");
    assert.equal(body.error, "No remote browser is reachable.");
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${retryAfter}`);
    assert.match(capture.status()[0].detail ?? "", new RegExp(`^127\\.0\\.0\\.1:${remote.port}: `));

    // Same port, new browser id: the endpoint is rediscovered through /json/version.
    await remote.restart();
    await eventually(() => stateOf(capture, "chromium-remote") === "ready", "reconnected");
    const again = await shoot(t.app, `${pages.origin}/`);
    assert.equal(again.status, 200);
    assert.equal((await again.json()).strategy, "chromium-remote");
    assert.ok(log.lines.some((l) => l.msg === "remote browser disconnected; reconnecting"));
  } finally {
    await t.close();
    await capture.close();
    await pages.close();
  }
});
