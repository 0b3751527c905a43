/**
 * The "chromium-remote" backend against a second Chromium that plays the remote fleet. For the
 * boundary test that Chromium maps every *.test name to 127.0.0.1 (the fleet's DNS), while the
 * service's injected resolver says which of those names are public: the only thing between a
 * page and the loopback "private network" is then our check and the request interception.
 */
import assert from "node:assert/strict";
import type { Resolver } from "../../../lib/egress/address.ts";
import { createRemoteCapturer } from "../../../lib/capture/remote/capturer.ts";
import type { CaptureJob } from "../../../lib/capture/types.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import {
  decodePng,
  PROBE_ALL_BLOCKED,
  probeSite,
  servePages,
} from "../../../testing/capture_fixtures.ts";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";
import { eventually } from "../../../testing/wait.ts";
import { PUBLIC_IP, publicOnLoopback } from "../../../testing/fleet_proxy.ts";
import { iconRoutes } from "../../../testing/icons.ts";
import { captureAnswer } from "../../../testing/capture_answer.ts";

const job = (url: string, overrides: Partial<CaptureJob> = {}): CaptureJob => ({
  url,
  deviceType: "desktop",
  colorScheme: "light",
  ...overrides,
});

/** Page targets the remote browser still has open (each capture must close its context). */
async function openPages(port: number): Promise<string[]> {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  return targets.filter((t: { type: string }) => t.type === "page").map((t: { url: string }) =>
    t.url
  );
}

Deno.test("remote captures say chromium-remote, honour viewport and scheme, and leave no context", async (t) => {
  await using remote = await startRemoteChromium();
  const pages = servePages();
  const capturer = createRemoteCapturer({
    endpoints: [remote.endpoint],
    timeoutMs: 10_000,
    allowPrivateNetwork: true,
    log: createMemoryLogger(),
  });
  const host = `127.0.0.1:${remote.port}`;
  try {
    assert.deepEqual(capturer.status(), [
      { name: "chromium-remote", state: "down", detail: `${host}: not connected yet` },
    ]);
    await t.step("desktop light: 1920x1080, white", async () => {
      const result = await capturer.capture(job(`${pages.origin}/`));
      assert.equal(result.strategy, "chromium-remote");
      assert.equal(result.targetStatus, 200);
      const png = decodePng(result.image);
      assert.deepEqual([png.width, png.height], [1920, 1080]);
      assert.deepEqual(png.rgb(100, 100), [255, 255, 255]);
      assert.doesNotMatch(pages.lastUserAgent ?? "", /Headless|Mobile/);
    });
    await t.step("mobile dark: 375x667, black, with a phone's user agent", async () => {
      const result = await capturer.capture(
        job(`${pages.origin}/`, { deviceType: "mobile", colorScheme: "dark" }),
      );
      const png = decodePng(result.image);
      assert.deepEqual([png.width, png.height], [375, 667]);
      assert.deepEqual(png.rgb(100, 100), [0, 0, 0]);
      assert.match(pages.lastUserAgent ?? "", /Android .* Mobile Safari/);
    });
    await t.step("mobile emulation includes touch", async () => {
      const result = await capturer.capture(job(`${pages.origin}/touch`, { deviceType: "mobile" }));
      assert.deepEqual(decodePng(result.image).rgb(187, 333), [0, 255, 0]);
    });
    await t.step("each capture has its own context: no cookie survives", async () => {
      for (let i = 0; i < 3; i++) await capturer.capture(job(`${pages.origin}/cookie`));
      assert.deepEqual(pages.cookies, [null, null, null]);
    });
    await t.step("every context is closed after its capture", async () => {
      await eventually(
        async () => (await openPages(remote.port)).every((url) => !url.startsWith(pages.origin)),
        "no capture page left open in the remote browser",
      );
    });
    await t.step("a document that never arrives is 408, as on the local backend", async () => {
      const quick = createRemoteCapturer({
        endpoints: [remote.endpoint],
        timeoutMs: 1_500,
        allowPrivateNetwork: true,
        log: createMemoryLogger(),
      });
      try {
        const error = await captureAnswer(quick.capture(job(`${pages.origin}/hang`)));
        assert.equal(error.status, 408);
        assert.equal(error.code, "upstream_timeout");
      } finally {
        await quick.close();
      }
    });
    assert.deepEqual(capturer.status(), [{
      name: "chromium-remote",
      state: "ready",
      detail: host,
    }]);
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("captures alternate over the connected endpoints; a dead one is skipped", async () => {
  await using first = await startRemoteChromium();
  await using second = await startRemoteChromium();
  const pages = servePages();
  const log = createMemoryLogger();
  const capturer = createRemoteCapturer({
    endpoints: [first.endpoint, second.endpoint],
    timeoutMs: 10_000,
    allowPrivateNetwork: true,
    log,
  });
  const [a, b] = [first.port, second.port].map((port) => `127.0.0.1:${port}`);
  const served = () => log.lines.filter((l) => l.msg === "remote capture").map((l) => l.endpoint);
  try {
    await capturer.start();
    for (let i = 0; i < 4; i++) await capturer.capture(job(`${pages.origin}/`));
    assert.deepEqual(served(), [a, b, a, b]);
    await second.kill();
    await eventually(() => Promise.resolve(capturer.status()[1].state !== "ready"), "b down");
    for (let i = 0; i < 2; i++) await capturer.capture(job(`${pages.origin}/`));
    assert.deepEqual(served().slice(4), [a, a]);
    // The dead endpoint keeps retrying in the background: "down" or "starting", never "ready".
    const [alive, dead] = capturer.status().map((s) => s.state);
    assert.equal(alive, "ready");
    assert.notEqual(dead, "ready");
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("on a remote browser no request reaches a private address: checks and interception", async (t) => {
  await using remote = await startRemoteChromium({
    args: ["--host-resolver-rules=MAP *.test 127.0.0.1"],
  });
  const secret = servePages();
  const probe = probeSite(secret.port);
  const internet = servePages({
    ...probe.routes,
    "/redirect": () =>
      new Response(null, {
        status: 302,
        headers: { location: `http://evil.test:${secret.port}/from-redirect` },
      }),
    // A page that declares the icon named in its query, and an icon on the public site.
    ...iconRoutes(),
  });
  const dialed: string[] = [];
  const answers: Record<string, string[]> = {
    "public.test": [PUBLIC_IP],
    "evil.test": ["127.0.0.1"],
    "localhost": ["127.0.0.1", "::1"],
  };
  const resolver: Resolver = (host) => Promise.resolve(answers[host] ?? []);
  const log = createMemoryLogger();
  const capturer = createRemoteCapturer({
    endpoints: [remote.endpoint],
    timeoutMs: 10_000,
    allowPrivateNetwork: false,
    resolver,
    // The service loads the favicon itself, through an egress proxy of its own.
    dial: publicOnLoopback(dialed),
    log,
  });
  const site = `http://public.test:${internet.port}`;
  try {
    await t.step("a name resolving to loopback is refused before the remote is asked", async () => {
      const error = await captureAnswer(capturer.capture(job(`http://evil.test:${secret.port}/`)));
      assert.equal(error.status, 400);
      assert.equal(error.code, "invalid_url");
      assert.equal(error.message, "The URL's host is not publicly reachable.");
      assert.doesNotMatch(error.hint, /evil\.test|loopback/, "no reason for the caller");
      assert.deepEqual(error.logDetail, {
        refusal: {
          host: "evil.test",
          port: secret.port,
          kind: "forbidden_address",
          detail: "loopback",
        },
      });
      assert.equal(capturer.status()[0].state, "down", "never connected for a refused URL");
    });
    await t.step("a name that does not resolve: 400 invalid_url", async () => {
      const error = await captureAnswer(capturer.capture(job("https://gone.test/")));
      assert.equal(error.status, 400);
      // Does not resolve and resolves to loopback look the same: no DNS oracle.
      assert.equal(error.message, "The URL's host is not publicly reachable.");
      assert.equal((error.logDetail.refusal as { kind: string }).kind, "unresolvable");
    });
    await t.step("a redirect hop to a private name is aborted: 400 invalid_url", async () => {
      const error = await captureAnswer(capturer.capture(job(`${site}/redirect`)));
      assert.equal(error.status, 400);
      assert.equal(error.code, "invalid_url");
      assert.equal(error.message, "The URL's host is not publicly reachable.");
    });
    await t.step(
      "subresources, frames, fetch, beacons, workers, WebSockets are blocked",
      async () => {
        const result = await capturer.capture(job(`${site}/probe`));
        assert.equal(result.strategy, "chromium-remote");
        assert.equal(result.targetStatus, 200);
        assert.deepEqual(probe.report(), PROBE_ALL_BLOCKED);
        const refused = log.lines.filter((l) => l.msg === "remote request refused")
          .map((l) => `${l.host}:${l.port}`);
        for (
          const host of ["127.0.0.1", "evil.test", "localhost"].map((h) => `${h}:${secret.port}`)
        ) {
          assert.ok(refused.includes(host), `${host} refused by interception (${refused})`);
        }
        assert.ok(refused.includes("169.254.169.254:80"));
      },
    );
    await t.step("the favicon the service loads goes no further than the page", async () => {
      const iconOf = async (href: string) =>
        (await capturer.capture(job(`${site}/icon-page?href=${encodeURIComponent(href)}`))).page;
      const own = await iconOf(`${site}/icon.png`);
      assert.match(own?.faviconData ?? "", /^data:image\/png;base64,/, "a public icon is kept");
      for (const host of ["evil.test", "127.0.0.1", "localhost"]) {
        const page = await iconOf(`http://${host}:${secret.port}/icon.png`);
        assert.equal(page?.faviconData, null, host);
      }
      assert.deepEqual(dialed.filter((ip) => ip !== PUBLIC_IP), [], "a private address was dialed");
    });
    assert.equal(secret.hits.size, 0, `private server reached: ${[...secret.hits.keys()]}`);
  } finally {
    await capturer.close();
    await internet.close();
    await secret.close();
  }
});
