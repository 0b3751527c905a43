/**
 * Browser faults: Chromium SIGKILLed in the middle of a capture (twice in a row), and a Chromium
 * that will not start at all (CHROME_PATH at a script that exits 1, or at a file that is not
 * executable). Each capture failure is an envelope; the service keeps answering; no Chromium
 * process or temporary profile is left behind.
 */
import assert from "node:assert/strict";
import type { ChromiumCapturer } from "../../lib/capture/local/capturer.ts";
import { createTestApp } from "../../testing/app.ts";
import { pngOf } from "../../testing/capture_app.ts";
import { decodePng, servePages } from "../../testing/capture_fixtures.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import {
  assertNoChromiumLeft,
  chromiumProcesses,
  chromiumProfiles,
  within,
} from "../../testing/fault_checks.ts";
import { BROWSER_WAIT_MS, eventually } from "../../testing/wait.ts";
import { startService } from "../../testing/service_process.ts";
import { TINY_PNG } from "../../testing/loopback_upstream.ts";

// Far above CAPTURE_TIMEOUT_MS below plus a browser (re)launch on a busy machine: a capture
// still pending by then counts as hung.
const HANG_GUARD_MS = BROWSER_WAIT_MS;

/** The in-process app or the real process: anything that answers a path. */
type Requester = { request(path: string, init?: RequestInit): Response | Promise<Response> };

async function shoot(app: Requester, url: string): Promise<Response> {
  return await app.request("/api/screenshot", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url }),
  });
}

Deno.test("Chromium killed mid-capture twice in a row: 503 envelopes, then captures succeed", async () => {
  const earlier = chromiumProfiles(Deno.pid);
  const pages = servePages();
  const t = await createTestApp({
    env: {
      ALLOW_PRIVATE_NETWORK: "true",
      RATE_LIMIT_PER_MINUTE: "1000",
      CAPTURE_TIMEOUT_MS: "10000",
    },
  });
  const capture = t.deps.capture as ChromiumCapturer;
  const killed: number[] = [];
  try {
    for (const round of [1, 2]) {
      // /hang never answers, so the capture is surely in flight when the browser dies.
      const inFlight = within(
        shoot(t.app, `${pages.origin}/hang?round=${round}`),
        HANG_GUARD_MS,
        "capture",
      );
      await eventually(() => pages.hits.get("/hang") === round, "the page is being loaded", {
        timeoutMs: BROWSER_WAIT_MS,
      });
      const pid = capture.browserPid();
      assert.ok(pid, "a browser is running");
      assert.ok(!killed.includes(pid), "a new browser after each crash");
      killed.push(pid);
      Deno.kill(pid, "SIGKILL");

      const failed = await inFlight;
      assert.equal(failed.headers.get("retry-after"), "1");
      const body = await assertEnvelope(t.app, failed, 503, "upstream_unavailable");
      assert.match(String(body.hint), /relaunched/);

      const next = await within(
        shoot(t.app, `${pages.origin}/?round=${round}`),
        HANG_GUARD_MS,
        "capture",
      );
      assert.equal(next.status, 200, await next.clone().text());
      assert.match(next.headers.get("content-type") ?? "", /^application\/json/);
      const shot = decodePng(pngOf(await next.json()));
      assert.deepEqual([shot.width, shot.height], [1920, 1080]);
      assert.deepEqual(shot.rgb(10, 10), [255, 255, 255], "the page itself, not an error page");
    }
    const live = chromiumProcesses({ ownerPid: Deno.pid }).map((p) => p.pid);
    for (const pid of killed) assert.ok(!live.includes(pid), `killed browser ${pid} is gone`);
    // Only the current browser's profile is on disk; the dead ones' were removed.
    await eventually(
      () => chromiumProfiles(Deno.pid, earlier).length === 1,
      "dead browsers' profiles removed",
      { timeoutMs: BROWSER_WAIT_MS },
    );
    const health = await (await t.app.request("/healthz")).json();
    assert.equal(health.capture[0].state, "ready");
    assert.equal(
      t.log.lines.filter((l) => l.msg === "browser disconnected; relaunching").length,
      2,
    );
  } finally {
    await t.close();
    await pages.close();
  }
  await assertNoChromiumLeft({ ownerPid: Deno.pid, earlier });
});

/** A directory with a "browser" that exits 1 at once, and one that is not executable. */
async function brokenBrowsers() {
  const dir = await Deno.makeTempDir({ prefix: "shotline_fault_browser_" });
  const exits = `${dir}/exits-1`;
  const notExecutable = `${dir}/not-executable`;
  await Deno.writeTextFile(exits, "#!/bin/sh\necho 'this browser is broken' >&2\nexit 1\n");
  await Deno.chmod(exits, 0o755);
  await Deno.writeTextFile(notExecutable, "#!/bin/sh\nexit 0\n");
  await Deno.chmod(notExecutable, 0o644);
  return {
    exits,
    notExecutable,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

for (const kind of ["exits", "notExecutable"] as const) {
  const what = kind === "exits" ? "a script that exits 1" : "a file that is not executable";
  Deno.test(`CHROME_PATH at ${what}: captures 503, /healthz says down, the rest works`, async () => {
    await using browsers = await brokenBrowsers();
    await using svc = await startService({
      KV_PATH: ":memory:",
      CHROME_PATH: browsers[kind],
      RATE_LIMIT_PER_MINUTE: "1000",
    });
    const app: Requester = { request: (path, init) => fetch(svc.base + path, init) };
    await svc.waitForLine((l) => l.msg === "browser launch failed");

    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await within(shoot(app, "https://example.com/"), HANG_GUARD_MS, "capture");
      assert.ok(Number(res.headers.get("retry-after")) > 0, "Retry-After is set");
      const body = await assertEnvelope(app, res, 503, "upstream_unavailable");
      assert.match(String(body.hint), /CHROME_PATH/);
      assert.match(String(body.hint), /BROWSER_WS_ENDPOINT/);
    }

    const health = await fetch(`${svc.base}/healthz`);
    assert.equal(health.status, 200);
    const { capture } = await health.json();
    assert.equal(capture[0].state, "down");
    // Puppeteer (pipe mode) reports a browser that exits at once as a closed CDP target.
    const reason = kind === "exits" ? /Target closed|Failed to launch/ : /is not executable/;
    assert.equal(capture[0].detail, undefined, "no error text for anonymous callers");
    const failed = await svc.waitForLine((l) => l.msg === "browser launch failed");
    assert.match(String(failed.error), reason, "the reason is logged");

    const form = new FormData();
    form.append("image", new File([TINY_PNG], "tiny.png", { type: "image/png" }));
    form.append("format", "webp");
    form.append("qualityPreset", "high");
    const exported = await fetch(`${svc.base}/api/export`, { method: "POST", body: form });
    assert.equal(exported.status, 200);
    assert.equal(exported.headers.get("content-type"), "image/webp");
    const webp = new Uint8Array(await exported.arrayBuffer());
    assert.equal(new TextDecoder().decode(webp.subarray(8, 12)), "WEBP");

    const docs = await fetch(`${svc.base}/docs`);
    assert.equal(docs.status, 200);
    assert.match(docs.headers.get("content-type") ?? "", /^text\/html/);
    await docs.body?.cancel();
    const spec = await fetch(`${svc.base}/openapi.json`);
    assert.equal(spec.status, 200);
    assert.ok((await spec.json()).paths["/api/screenshot"]);

    // A failed launch cleans up after itself, while the service runs.
    assert.deepEqual(chromiumProfiles(svc.pid), []);
    assert.equal((await svc.stop()).code, 0);
    await assertNoChromiumLeft({ ownerPid: svc.pid });
  });
}
