/**
 * Remote captures behind the egress proxy (EGRESS_PROXY_URL), with a second Chromium on loopback
 * playing the fleet. That Chromium could reach the loopback "private network" directly; only the
 * proxy stands in the way. Names resolve through the injected resolver, and the proxy's dial seam
 * sends the one fake public address to the loopback "internet" server.
 */
import assert from "node:assert/strict";
import { createRemoteCapturer } from "../../../lib/capture/remote/capturer.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { decodePng, schemePage, servePages } from "../../../testing/capture_fixtures.ts";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";
import { loopbackFleetProxy, PUBLIC_IP } from "../../../testing/fleet_proxy.ts";
import { iconRoutes } from "../../../testing/icons.ts";
import { captureAnswer } from "../../../testing/capture_answer.ts";

/** Every way out a page has, aimed at the private server; the page loads fully either way. */
function escapes(secret: number): string {
  const target = `http://127.0.0.1:${secret}`;
  return `<link rel="stylesheet" href="${target}/css"><img src="${target}/img">
    <iframe src="${target}/frame"></iframe>
    <form id="f" method="post" action="${target}/form" target="_blank"></form>
    <script>
      fetch("${target}/fetch").catch(() => {});
      navigator.sendBeacon("${target}/beacon", "x");
      new EventSource("${target}/events");
      try { new WebSocket("ws://127.0.0.1:${secret}/ws"); } catch {}
      const code = 'new WebSocket("ws://127.0.0.1:${secret}/worker-ws"); fetch("${target}/worker")';
      new Worker(URL.createObjectURL(new Blob([code])));
      window.open("${target}/popup");
      document.getElementById("f").submit();
      addEventListener("load", () => setTimeout(() => location.href = "${target}/navigate", 10));
    </script>`;
}

Deno.test("remote captures behind the egress proxy: pages get out only through it", async (t) => {
  await using remote = await startRemoteChromium();
  const secret = servePages();
  const workerArrived = Promise.withResolvers<void>();
  const internet = servePages({
    "/escapes": () =>
      new Response(schemePage(escapes(secret.port)), { headers: { "content-type": "text/html" } }),
    "/away": () =>
      new Response(schemePage(`<script>location.href = "/dark"</script>`), {
        headers: { "content-type": "text/html" },
      }),
    "/dark": () =>
      new Response(`<body style="background:#000">`, { headers: { "content-type": "text/html" } }),
    // A frame and a worker get out too (with the context's credentials), and the page's load
    // waits for the worker's request, so the capture sees it.
    "/inside": () =>
      new Response(
        schemePage(`<iframe src="/framed"></iframe><script>
          const code = 'fetch("http://public.test/from-worker")';
          new Worker(URL.createObjectURL(new Blob([code])));
        </script><img src="/gate">`),
        { headers: { "content-type": "text/html" } },
      ),
    "/from-worker": () => (workerArrived.resolve(), new Response("ok")),
    // A page that declares the icon named in its query, and an icon on the public site.
    ...iconRoutes(),
    "/gate": async () => {
      await Promise.race([workerArrived.promise, new Promise((r) => setTimeout(r, 5_000))]);
      return new Response(null, { status: 204 });
    },
  });
  const log = createMemoryLogger();
  const { proxy: fleetProxy, dialed } = loopbackFleetProxy({ internetPort: internet.port, log });
  const capturer = createRemoteCapturer({
    endpoints: [remote.endpoint],
    timeoutMs: 10_000,
    allowPrivateNetwork: false,
    log,
    fleetProxy,
  });
  const shoot = (url: string) =>
    capturer.capture({ url, deviceType: "desktop", colorScheme: "light" });
  try {
    assert.equal(capturer.boundary?.(), "enforced");
    await t.step("a public page renders through the proxy", async () => {
      const result = await shoot("http://public.test/");
      assert.equal(result.strategy, "chromium-remote");
      assert.equal(result.targetStatus, 200);
      assert.deepEqual(decodePng(result.image).rgb(100, 100), [255, 255, 255]);
      // The fleet never resolved public.test itself: the proxy did, and connected to it.
      assert.ok(dialed.includes(PUBLIC_IP));
      assert.equal(internet.hits.get("/"), 1);
    });
    await t.step("frames and workers are answered the proxy's credentials too", async () => {
      const result = await shoot("http://public.test/inside");
      assert.equal(result.targetStatus, 200);
      assert.equal(internet.hits.get("/framed"), 1);
      assert.equal(internet.hits.get("/from-worker"), 1);
    });
    await t.step("a private target is refused by the proxy: 400 invalid_url", async () => {
      const error = await captureAnswer(shoot(`http://127.0.0.1:${secret.port}/`));
      assert.equal(error.status, 400);
      assert.equal(error.code, "invalid_url");
    });
    await t.step("subresources, frames, sockets, workers, popups, forms: none arrive", async () => {
      const result = await shoot("http://public.test/escapes");
      assert.equal(result.targetStatus, 200);
      assert.equal(internet.hits.get("/escapes"), 1);
    });
    await t.step("the main frame may not navigate away from the checked URL", async () => {
      const result = await shoot("http://public.test/away");
      assert.deepEqual(decodePng(result.image).rgb(100, 100), [255, 255, 255]);
      assert.equal(internet.hits.get("/dark"), undefined);
    });
    await t.step("the favicon goes through the capture's proxy session too", async () => {
      const iconOf = async (href: string) =>
        (await shoot(`http://public.test/icon-page?href=${encodeURIComponent(href)}`)).page;
      const own = await iconOf("http://public.test/icon.png");
      assert.match(own?.faviconData ?? "", /^data:image\/png;base64,/, "a public icon is kept");
      const hidden = await iconOf(`http://127.0.0.1:${secret.port}/icon.png`);
      assert.equal(hidden?.faviconData, null);
    });
    // Late requests (the popup, the timer's navigation) would have arrived by now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual([...secret.hits.keys()], [], "the private server was reached");
    assert.deepEqual(dialed.filter((ip) => ip !== PUBLIC_IP), [], "a private address was dialed");
  } finally {
    await capturer.close();
    await internet.close();
    await secret.close();
  }
});
