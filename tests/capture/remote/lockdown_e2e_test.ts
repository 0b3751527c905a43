/**
 * On the remote backend, whose request interception only covers the capture's own page: new
 * windows must not become a way around it (the "fleet" Chromium here is started with
 * --disable-popup-blocking, like Browserless and most fleets), and WebRTC is taken away from the
 * page and its workers. The fleet maps *.test to 127.0.0.1; only `secret` plays the private
 * network, and nothing may reach it.
 */
import assert from "node:assert/strict";
import type { Resolver } from "../../../lib/egress/address.ts";
import { createRemoteCapturer } from "../../../lib/capture/remote/capturer.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import {
  reportRoutes,
  schemePage,
  servePages,
  WEBRTC_LOCKED_DOWN,
  webrtcProbe,
} from "../../../testing/capture_fixtures.ts";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";
import { publicOnLoopback } from "../../../testing/fleet_proxy.ts";

const PUBLIC_IP = "93.184.215.14";

/** Every way a page can open a window, each aimed at the private server. */
function popupPage(secret: number): string {
  const at = (path: string) => `"http://127.0.0.1:${secret}/${path}"`;
  return schemePage(`<base target="_blank"><a id="based" href=${at("base")}>b</a>
<form id="form" action=${at("form")} method="post"></form>
<script>
  const link = (path, attach) => {
    const a = document.createElement("a"); a.href = path; a.target = "_blank";
    if (attach) document.body.append(a);
    return a;
  };
  const steps = {
    open: () => window.open(${at("open")}),
    named: () => window.open("", "named").location = ${at("named")},
    link: () => link(${at("link")}, true).click(),
    detachedLink: () => link(${at("detached")}, false).click(),
    dispatched: () => link(${at("dispatched")}, false).dispatchEvent(new MouseEvent("click")),
    middleClick: () => link(${at("middle")}, true)
      .dispatchEvent(new MouseEvent("auxclick", { button: 1, bubbles: true })),
    baseTarget: () => document.getElementById("based").click(),
    formSubmit: () => document.getElementById("form").submit(),
    formRequestSubmit: () => document.getElementById("form").requestSubmit(),
    blankFrameOpen: () => {
      const f = document.createElement("iframe"); document.body.append(f);
      return f.contentWindow.open(${at("frame-open")});
    },
  };
  ${
    webrtcProbe(`(seen) => {
      for (const [name, step] of Object.entries(steps)) { try { step(); } catch (e) {} }
      setTimeout(() => fetch("/report", { method: "POST", body: JSON.stringify(seen) }), 300);
    }`)
  }
</script><img src="/after-report">`);
}

Deno.test("remote: pages open no window around the request guard, and have no WebRTC", async () => {
  await using remote = await startRemoteChromium({
    args: ["--host-resolver-rules=MAP *.test 127.0.0.1", "--disable-popup-blocking"],
  });
  const secret = servePages();
  // Popups that slipped through get time to load before the capture ends.
  const probe = reportRoutes(1_000);
  const internet = servePages({
    "/popups": () =>
      new Response(popupPage(secret.port), { headers: { "content-type": "text/html" } }),
    ...probe.routes,
  });
  const resolver: Resolver = (host) =>
    Promise.resolve(host === "public.test" ? [PUBLIC_IP] : host === "localhost" ? ["::1"] : []);
  const log = createMemoryLogger();
  const capturer = createRemoteCapturer({
    endpoints: [remote.endpoint],
    timeoutMs: 10_000,
    allowPrivateNetwork: false,
    resolver,
    dial: publicOnLoopback(),
    log,
  });
  try {
    const result = await capturer.capture({
      url: `http://public.test:${internet.port}/popups`,
      deviceType: "desktop",
      colorScheme: "light",
    });
    assert.equal(result.targetStatus, 200);
    assert.deepEqual(probe.report(), WEBRTC_LOCKED_DOWN);
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual([...secret.hits.keys()], [], "no popup reached the private server");
    const targets = await (await fetch(`http://127.0.0.1:${remote.port}/json/list`)).json();
    const popups = targets.filter((t: { url: string }) => t.url.includes(`:${secret.port}/`));
    assert.deepEqual(popups, [], "no popup is left open");
  } finally {
    await capturer.close();
    await internet.close();
    await secret.close();
  }
});
