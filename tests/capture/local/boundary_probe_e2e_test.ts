/**
 * The boundary self-test on the real Chromium: it passes on a browser that routes every context
 * through its proxy, keeps the backend down (captures 503) on one whose contexts ignore their
 * proxy, and leaves no context, page or server behind either way (the resource sanitizer
 * checks the canary server).
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { createChromiumCapturer } from "../../../lib/capture/local/capturer.ts";
import type { ContextOpener } from "../../../lib/capture/local/context_pool.ts";
import {
  BoundarySelfTestError,
  MIN_TESTED_CHROMIUM,
  runBoundarySelfTest,
  warnIfUntested,
} from "../../../lib/capture/local/boundary_probe.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { launchChromium } from "../../../testing/editor_browser.ts";
import { createTestApp } from "../../../testing/app.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";

/** A browser whose contexts ignore their proxy: the context is opened without one. */
const proxyDropped: ContextOpener = async (browser) => {
  const context = await browser.createBrowserContext();
  return { context, page: await context.newPage() };
};

/** Contexts and pages the browser has open besides its default context's first tab. */
async function openTargets(browser: Browser) {
  const contexts = browser.browserContexts().filter((c: BrowserContext) => c.id !== undefined);
  const pages = (await browser.pages()).filter((p: Page) => p.url() !== "about:blank");
  return { contexts: contexts.length, pages: pages.length };
}

Deno.test("the self-test passes on this Chromium and leaves nothing open", async () => {
  const browser = await launchChromium();
  try {
    const log = createMemoryLogger();
    await runBoundarySelfTest({ browser, log });
    assert.ok(log.lines.some((line) => line.msg === "boundary self-test passed"));
    assert.deepEqual(await openTargets(browser), { contexts: 0, pages: 0 });
  } finally {
    await browser.close();
  }
});

Deno.test("a browser whose contexts ignore the proxy fails the self-test, closed", async () => {
  const browser = await launchChromium();
  try {
    const log = createMemoryLogger();
    const failure = await runBoundarySelfTest({ browser, log, openContext: proxyDropped }).then(
      () => null,
      (error) => error,
    );
    assert.ok(failure instanceof BoundarySelfTestError, String(failure));
    assert.match(failure.message, /^boundary self-test failed: the canary page did not load/);
    assert.deepEqual(await openTargets(browser), { contexts: 0, pages: 0 });
  } finally {
    await browser.close();
  }
});

Deno.test("the backend is ready only after the self-test passes", async () => {
  const log = createMemoryLogger();
  const capturer = createChromiumCapturer({ timeoutMs: 10_000, allowPrivateNetwork: false, log });
  try {
    await capturer.start();
    const [backend] = capturer.status();
    assert.equal(backend.state, "ready");
    const passed = log.lines.findIndex((line) => line.msg === "boundary self-test passed");
    assert.ok(passed >= 0, "the self-test ran before the backend was ready");
  } finally {
    await capturer.close();
  }
});

Deno.test("a failed self-test keeps the backend down and captures answer 503", async () => {
  const log = createMemoryLogger();
  const capture = createChromiumCapturer({
    timeoutMs: 10_000,
    allowPrivateNetwork: true,
    log,
    openContext: proxyDropped,
  });
  const t = await createTestApp({ env: { ALLOW_PRIVATE_NETWORK: "true" }, deps: { capture, log } });
  try {
    await capture.start();
    const [backend] = capture.status();
    assert.equal(backend.state, "down");
    assert.match(backend.detail ?? "", /^boundary self-test failed: /);
    const failed = log.lines.find((line) => line.msg === "browser launch failed");
    assert.match(String(failed?.error), /^boundary self-test failed: /);
    // No browser is left running behind a boundary that failed its check.
    assert.equal(capture.browserPid(), undefined);

    const res = await t.app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/" }),
    });
    await assertEnvelope(t.app, res, 503, "upstream_unavailable");
    const health = await (await t.app.request("/healthz")).json();
    assert.equal(health.capture[0].state, "down");
    assert.match(health.capture[0].reason, /^boundary self-test failed: the canary page/);
  } finally {
    await t.close();
    await capture.close();
  }
});

Deno.test("a browser older than the oldest tested is named in a warning", () => {
  const log = createMemoryLogger();
  warnIfUntested(`HeadlessChrome/${MIN_TESTED_CHROMIUM - 6}.0.7871.100`, log);
  warnIfUntested(`HeadlessChrome/${MIN_TESTED_CHROMIUM}.0.8078.79`, log);
  assert.equal(log.lines.length, 1);
  assert.equal(log.lines[0].level, "warn");
  assert.equal(log.lines[0].minimum, MIN_TESTED_CHROMIUM);
  assert.match(String(log.lines[0].version), /\/150\./);
});
