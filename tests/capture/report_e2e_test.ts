/**
 * The capture report on the real app and a real Chromium: each finding fixture reports exactly
 * its findings (and ordinary pages none), the noisy page's console and requests are counted and
 * attributed (a 404, a refused port, the boundary, the caller's blocking), a cached answer gives
 * its render's report, and the report's schema is in /openapi.json; the remote backend reports
 * the same.
 */
import assert from "node:assert/strict";
import { servePages } from "../../testing/capture_fixtures.ts";
import { captureHarness } from "../../testing/capture_harness.ts";
import { closedPort, FINDING_PAGES, findingRoutes } from "../../testing/finding_pages.ts";
import { shapeHarness } from "../../testing/shape_harness.ts";

// Denied by the boundary though private addresses are allowed: its refusal is a block. The
// proxy refuses it before connecting, so nothing is ever sent there.
const DENIED_HOST = "127.0.0.2";

Deno.test("capture report: findings, console, requests, cache and schema", async (t) => {
  const refusedPort = closedPort();
  const pages = servePages({
    ...findingRoutes(refusedPort),
    "/findings/noisy-denied": () =>
      new Response(
        `<!doctype html><title>Denied</title><p>A page with one image from a denied host.</p>` +
          `<img src="http://${DENIED_HOST}:${refusedPort}/x.png" width="64" height="64">`,
        { headers: { "content-type": "text/html" } },
      ),
  });
  const { harness, shoot } = await captureHarness(pages, {
    CAPTURE_TIMEOUT_MS: "8000",
    EGRESS_DENY_CIDRS: `${DENIED_HOST}/32`,
  });
  const report = async (path: string, options: object = {}) => {
    const response = await shoot({ url: `${pages.origin}${path}`, ...options });
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    const body = JSON.parse(text);
    assert.ok(body.report, `${path} has a report`);
    return { response, body, report: body.report };
  };
  try {
    for (const { path, findings, options } of FINDING_PAGES) {
      const named = `${path} ${options ? JSON.stringify(options) : ""}`;
      await t.step(`${named}: findings ${findings.join(", ") || "none"}`, async () => {
        const { response, report: got } = await report(path, { ...options, forceRefresh: true });
        assert.deepEqual(got.findings.map((f: { kind: string }) => f.kind), findings, named);
        for (const finding of got.findings) assert.ok(finding.hint.length > 20, finding.kind);
        const header = response.headers.get("x-capture-findings");
        assert.equal(header, findings.length > 0 ? findings.join(",") : null);
      });
    }

    await t.step("the challenge served 403 says so in its target, once a bot check", async () => {
      const { report: got } = await report("/findings/challenge-403");
      assert.deepEqual(got.target, {
        status: 403,
        finalUrl: `${pages.origin}/findings/challenge-403`,
      });
      assert.match(got.findings[0].evidence, /just a moment/);
    });

    await t.step("a redirect to a sign-in form: the final URL and why", async () => {
      const { report: got } = await report("/findings/paywalled");
      assert.deepEqual(got.target, { status: 200, finalUrl: `${pages.origin}/findings/login` });
      assert.equal(got.findings[0].evidence, "redirected to /findings/login");
    });

    await t.step(
      "the noisy page: console errors, the exception, a 404 and a refused port",
      async () => {
        const { report: got } = await report("/findings/noisy");
        assert.deepEqual(got.findings, []);
        assert.equal(got.console.errors, 2, JSON.stringify(got.console));
        assert.equal(got.console.exceptions, 1);
        const [first, second, third] = got.console.first;
        assert.equal(first.kind, "error");
        assert.match(first.text, /^first failure/);
        assert.equal(second.text.length, 300, "cut at 300 characters");
        assert.deepEqual(third.kind, "exception");
        assert.match(third.text, /kaput: uncaught in a timer/);
        assert.equal(got.requests.failed, 2, JSON.stringify(got.requests));
        assert.equal(got.requests.blocked, 0);
        assert.deepEqual(got.requests.byReason, {
          http_404: 1,
          "net::ERR_CONNECTION_REFUSED": 1,
        });
        const reasons = Object.fromEntries(
          got.requests.first.map((r: { url: string; reason: string }) => [r.url, r.reason]),
        );
        assert.equal(reasons[`${pages.origin}/missing.png`], "http_404");
        assert.equal(
          reasons[`http://127.0.0.1:${refusedPort}/beacon.png`],
          "net::ERR_CONNECTION_REFUSED",
        );
      },
    );

    await t.step("blocked requests say who blocked them", async () => {
      const own = await report("/findings/noisy", { blockRequests: ["*/missing.png"] });
      assert.equal(own.report.requests.blocked, 1, JSON.stringify(own.report.requests));
      assert.equal(own.report.requests.byReason.blocked_by_request, 1);
      const types = await report("/findings/noisy", { blockResources: ["image"] });
      assert.equal(types.report.requests.blocked, 2, JSON.stringify(types.report.requests));
      assert.deepEqual(types.report.requests.byReason, { resource_type: 2 });
      const denied = await report("/findings/noisy-denied");
      assert.deepEqual(denied.report.requests.byReason, { boundary: 1 });
      assert.deepEqual([denied.report.requests.failed, denied.report.requests.blocked], [0, 1]);
    });

    await t.step(
      "timings are whole ms that add up, the service's encode too; a fast page ran out of no wait",
      async () => {
        const { report: got } = await report("/findings/article");
        const { navigation, settle, shot, encode, total } = got.timings;
        for (const value of [navigation, settle, shot, encode, total]) {
          assert.ok(Number.isInteger(value) && value >= 0, String(value));
        }
        assert.equal(encode, 0, "Chromium encoded the png");
        assert.ok(navigation + settle + shot <= total + 2, JSON.stringify(got.timings));
        assert.deepEqual(got.waits, []);
        assert.deepEqual(got.console, { errors: 0, exceptions: 0, first: [] });
        // A settled full page is joined from PNG screens: the service encodes the jpeg.
        const joined = await report("/findings/article", { fullPage: true, format: "jpeg" });
        const timings = joined.report.timings;
        assert.ok(timings.encode > 0, JSON.stringify(timings));
        assert.ok(
          timings.navigation + timings.settle + timings.shot + timings.encode <= timings.total + 2,
          JSON.stringify(timings),
        );
      },
    );

    await t.step("a cached answer gives the report of its render", async () => {
      const body = { url: `${pages.origin}/findings/consent-wall`, deviceType: "mobile" };
      const first = await shoot(body);
      assert.equal(first.status, 200);
      const fresh = await first.json();
      assert.equal(fresh.cached, false);
      const again = await (await shoot(body)).json();
      assert.equal(again.cached, true);
      assert.deepEqual(again.report, fresh.report);
      assert.deepEqual(again.report.findings.map((f: { kind: string }) => f.kind), [
        "consent_wall",
      ]);
    });

    await t.step("/openapi.json names CaptureReport on the screenshot answer", async () => {
      const response = await harness.app.request("/openapi.json");
      assert.equal(response.status, 200);
      const doc = await response.json();
      const schemas = doc.components.schemas;
      assert.ok(schemas.CaptureReport, "CaptureReport registered");
      assert.ok(schemas.CaptureFinding, "CaptureFinding registered");
      assert.deepEqual(
        schemas.ScreenshotResponse.properties.report,
        { $ref: "#/components/schemas/CaptureReport" },
      );
      assert.deepEqual(
        schemas.CaptureFinding.properties.kind.enum,
        ["bot_challenge", "consent_wall", "login_wall", "blank", "error_page", "truncated"],
      );
    });
  } finally {
    await harness.close();
    await pages.close();
  }
});

Deno.test("capture report on the remote backend: the same findings and counts", async () => {
  const refusedPort = closedPort();
  const pages = servePages(findingRoutes(refusedPort));
  try {
    await using remote = await shapeHarness(pages, "remote");
    const wall = await remote.shoot("/findings/consent-wall", { fullPage: false });
    assert.deepEqual(wall.json.report.findings.map((f: { kind: string }) => f.kind), [
      "consent_wall",
    ]);
    const noisy = (await remote.shoot("/findings/noisy", { fullPage: false })).json.report;
    assert.deepEqual([noisy.console.errors, noisy.console.exceptions], [2, 1]);
    assert.deepEqual(noisy.requests.byReason, { http_404: 1, "net::ERR_CONNECTION_REFUSED": 1 });
    const blocked = await remote.shoot("/findings/noisy", {
      fullPage: false,
      blockRequests: ["*/missing.png"],
    });
    assert.deepEqual(blocked.json.report.requests.byReason, {
      blocked_by_request: 1,
      "net::ERR_CONNECTION_REFUSED": 1,
    });
  } finally {
    await pages.close();
  }
});
