/**
 * The network boundary with real Chromium and ALLOW_PRIVATE_NETWORK off. Names resolve through
 * an injected resolver; the proxy's dial seam sends the one fake public address to a loopback
 * "internet" server. A second loopback server plays the private network: nothing may reach it.
 */
import assert from "node:assert/strict";
import type { Resolver } from "../../lib/egress/address.ts";
import { createChromiumCapturer } from "../../lib/capture/local/capturer.ts";
import type { Dialer } from "../../lib/egress/policy.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import {
  PROBE_ALL_BLOCKED,
  probeScript,
  probeSite,
  schemePage,
  servePages,
} from "../../testing/capture_fixtures.ts";
import { iconRoutes } from "../../testing/icons.ts";
import { captureAnswer } from "../../testing/capture_answer.ts";

const PUBLIC_IP = "93.184.215.14";

function boundaryFixture() {
  const secret = servePages({ "/": () => new Response(schemePage()) });
  // The page under test posts what it saw to /report; each capture expects a fresh one.
  const probe = probeSite(secret.port);
  const internet = servePages({
    ...probe.routes,
    "/redirect": () => redirect(`http://127.0.0.1:${secret.port}/from-redirect`),
    "/redirect-name": () => redirect(`https://evil.test:${secret.port}/from-redirect`),
    // A page that declares the icon named in its query, and icons on the public site.
    ...iconRoutes(),
    "/icon-hop": () => redirect(`http://127.0.0.1:${secret.port}/icon.png`),
    "/rebind": () =>
      // Same-origin fetch means a second lookup of rebind.test; the report goes elsewhere.
      // The proxy's refusal is a 403 it marks itself, which a same-origin script can read.
      html(schemePage(`<script>fetch("/again")
        .then((r) => r.headers.get("x-shotline-egress") ?? "reached", () => "blocked")
        .then((r) => fetch("http://public.test/report",
          { method: "POST", mode: "no-cors", body: JSON.stringify({ again: r }) }));
        </script><img src="http://public.test/after-report">`)),
  });
  const answers: Record<string, string[]> = {
    "public.test": [PUBLIC_IP],
    "evil.test": ["127.0.0.1"],
    "localhost": ["127.0.0.1", "::1"],
    "v6.test": ["::1"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "nat64.test": ["64:ff9b::a9fe:a9fe"],
  };
  let rebindLookups = 0;
  // rebind.test answers public once, then loopback: the classic DNS-rebinding attack.
  const resolver: Resolver = (host) =>
    Promise.resolve(
      host === "rebind.test"
        ? (++rebindLookups === 1 ? [PUBLIC_IP] : ["127.0.0.1"])
        : answers[host] ?? [],
    );
  const dialed: string[] = [];
  // Production dials the checked address itself; here the fake public one goes to `internet`.
  const dial: Dialer = (address, port, signal) => {
    dialed.push(address);
    return address === PUBLIC_IP
      ? Deno.connect({ hostname: "127.0.0.1", port: internet.port, signal })
      : Deno.connect({ hostname: address, port, signal });
  };
  const log = createMemoryLogger();
  const capturer = createChromiumCapturer({
    timeoutMs: 10_000,
    allowPrivateNetwork: false,
    resolver,
    dial,
    log,
  });
  return {
    secret,
    internet,
    capturer,
    dialed,
    log,
    report: probe.report,
    expectReport: probe.expectReport,
    refusedHosts: () =>
      log.lines.filter((l) => l.msg === "egress refused").map((l) => `${l.host}:${l.port}`),
    async close() {
      await capturer.close();
      await internet.close();
      await secret.close();
    },
  };
}

Deno.test("no capture request reaches a private address, whatever form it takes", async (t) => {
  const f = boundaryFixture();
  const s = f.secret.port;
  const shoot = (url: string) =>
    f.capturer.capture({ url, deviceType: "desktop", colorScheme: "light" });
  try {
    await t.step("top documents on private names and literals: 400 invalid_url", async () => {
      for (
        const url of [
          `http://evil.test:${s}/`,
          "https://evil.test/",
          `http://localhost:${s}/`,
          `http://v6.test:${s}/`,
          `http://mapped.test:${s}/`,
          "http://nat64.test/",
          `http://127.0.0.1:${s}/`,
          `http://[::1]:${s}/`,
          "https://[::ffff:127.0.0.1]/",
          "http://169.254.169.254/latest/meta-data/",
        ]
      ) {
        const error = await captureAnswer(shoot(url));
        assert.equal(error.status, 400, url);
        assert.equal(error.code, "invalid_url", url);
        assert.equal(error.message, "The URL's host is not publicly reachable.", url);
        assert.match(error.hint, /public internet/, url);
        assert.ok(error.logDetail.refusal, `the reason is kept for the log (${url})`);
      }
    });
    await t.step("a name that does not resolve: 400 invalid_url", async () => {
      const error = await captureAnswer(shoot("https://gone.test/"));
      assert.equal(error.status, 400);
      assert.equal(error.message, "The URL's host is not publicly reachable.");
      assert.doesNotMatch(error.hint, /gone\.test/);
    });
    await t.step("a redirect hop to a private literal or name is refused", async () => {
      for (const path of ["/redirect", "/redirect-name"]) {
        const error = await captureAnswer(shoot(`http://public.test${path}`));
        assert.equal(error.code, "invalid_url", `${path}: ${error.message} ${error.hint}`);
        assert.equal(error.message, "The URL's host is not publicly reachable.", path);
        assert.deepEqual(
          (error.logDetail.refusal as { detail: string }).detail,
          "loopback",
          path,
        );
      }
    });
    await t.step("subresources, iframes, fetch, WebSockets and workers are blocked", async () => {
      f.expectReport();
      const result = await shoot("http://public.test/probe");
      assert.equal(result.targetStatus, 200);
      assert.deepEqual(f.report(), PROBE_ALL_BLOCKED);
      // The proxy itself refused them (not some other browser policy).
      const refused = f.refusedHosts();
      for (const host of [`127.0.0.1:${s}`, `evil.test:${s}`, "169.254.169.254:80"]) {
        assert.ok(refused.includes(host), `${host} refused by the proxy (${refused})`);
      }
      assert.ok(refused.includes(`localhost:${s}`) && refused.includes("evil.test:443"));
    });
    await t.step(
      "DNS rebinding: the second lookup's private answer is never connected",
      async () => {
        f.dialed.length = 0;
        f.expectReport();
        const result = await shoot(`http://rebind.test:${s}/rebind`);
        assert.equal(result.targetStatus, 200);
        assert.deepEqual(f.report(), { again: "refused" });
        assert.deepEqual(f.dialed.filter((ip) => ip !== PUBLIC_IP), []);
        assert.ok(f.refusedHosts().includes(`rebind.test:${s}`));
      },
    );
    await t.step("the favicon the service loads goes no further than the page", async () => {
      const iconOf = async (href: string) =>
        (await shoot(`http://public.test/icon-page?href=${encodeURIComponent(href)}`)).page;
      const own = await iconOf("http://public.test/icon.png");
      assert.match(own?.faviconData ?? "", /^data:image\/png;base64,/, "a public icon is kept");
      for (
        const href of [
          `http://evil.test:${s}/icon.png`,
          `http://127.0.0.1:${s}/icon.png`,
          `http://localhost:${s}/icon.png`,
          "http://169.254.169.254/icon.png",
          "http://public.test/icon-hop",
        ]
      ) {
        const page = await iconOf(href);
        assert.equal(page?.favicon, href);
        assert.equal(page?.faviconData, null, href);
      }
      const refused = f.refusedHosts();
      assert.ok(refused.includes(`evil.test:${s}`) && refused.includes("169.254.169.254:80"));
    });
    await t.step("an html document reaches no further than a page at a URL", async () => {
      f.expectReport();
      // Its base is the public site, so the probe's report and final image go there.
      const result = await f.capturer.capture({
        url: "about:blank",
        html: `<base href="http://public.test/">${schemePage(probeScript(s))}`,
        deviceType: "desktop",
        colorScheme: "light",
      });
      assert.equal(result.targetStatus, null);
      assert.deepEqual(f.report(), PROBE_ALL_BLOCKED);
    });
    assert.equal(f.secret.hits.size, 0, `private server reached: ${[...f.secret.hits.keys()]}`);
  } finally {
    await f.close();
  }
});

function html(body: string): Response {
  return new Response(body, { headers: { "content-type": "text/html" } });
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location } });
}
