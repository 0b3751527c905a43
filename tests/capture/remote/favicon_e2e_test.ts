/**
 * The favicon on the remote backend (a second Chromium on loopback plays the fleet) with
 * ALLOW_PRIVATE_NETWORK off and hostile NO_PROXY and HTTP(S)_PROXY in the environment. Behind
 * the fleet listener (EGRESS_PROXY_URL) every icon vector of testing/favicon_steps.ts goes
 * through the capture's session or nowhere; without it, the service's icon load still goes
 * through a loopback session of its own, never through the fleet or the environment's proxy.
 */
import assert from "node:assert/strict";
import { createRemoteCapturer } from "../../../lib/capture/remote/capturer.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { loopbackFleetProxy, PUBLIC_IP, publicOnLoopback } from "../../../testing/fleet_proxy.ts";
import { forbiddenIconSteps, publicIconSteps } from "../../../testing/favicon_steps.ts";
import { faviconSite, htmlJobIcon, PUBLIC_ICON } from "../../../testing/favicon_vectors.ts";
import { hostileProxyEnv, setEnv, tcpTrap } from "../../../testing/hostile_env.ts";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";

Deno.test("remote backend: the favicon leaves through the boundary, once", async (t) => {
  await using remote = await startRemoteChromium();
  let fallback: string | null = null;
  const { routes, endless } = faviconSite({ fallbackTo: () => fallback });
  const site = servePages(routes);
  using envProxy = tcpTrap();
  using secret = tcpTrap("127.0.0.1");
  using secret6 = tcpTrap("::1", secret.port);
  const restore = setEnv(hostileProxyEnv(`http://127.0.0.1:${envProxy.port}`));
  const log = createMemoryLogger();
  const { proxy: fleetProxy, dialed } = loopbackFleetProxy({ internetPort: site.port, log });
  const capturer = createRemoteCapturer({
    endpoints: [remote.endpoint],
    timeoutMs: 10_000,
    allowPrivateNetwork: false,
    log,
    fleetProxy,
  });
  const contacts = () => ({
    secret: secret.contacts + secret6.contacts,
    envProxy: envProxy.contacts,
  });
  const harness = {
    capturer,
    site,
    endless,
    setFallback: (to: string | null) => void (fallback = to),
    secretPort: secret.port,
    contacts,
  };
  try {
    assert.equal(capturer.boundary?.(), "enforced");
    await forbiddenIconSteps(t, harness);
    await publicIconSteps(t, harness);
    assert.deepEqual(dialed.filter((ip) => ip !== PUBLIC_IP), [], "a private address was dialed");

    await t.step(
      "without the fleet listener: the icon load keeps to a session of its own",
      async () => {
        const advisory = createRemoteCapturer({
          endpoints: [remote.endpoint],
          timeoutMs: 10_000,
          allowPrivateNetwork: false,
          resolver: (host) => Promise.resolve(host === "public.test" ? [PUBLIC_IP] : ["127.0.0.1"]),
          dial: (address, port, signal) =>
            publicOnLoopback()(address, address === PUBLIC_IP ? site.port : port, signal),
          log,
        });
        try {
          assert.equal(advisory.boundary?.(), "advisory");
          const shoot = (html: string) =>
            advisory.capture({
              url: "about:blank",
              html,
              deviceType: "desktop",
              colorScheme: "light",
            });
          const hidden = await shoot(htmlJobIcon(secret.port));
          assert.equal(hidden.page?.faviconData, null);
          const before = site.hits.get("/icon.png") ?? 0;
          const kept = await shoot(`<link rel="icon" href="http://public.test/icon.png">`);
          assert.equal(
            kept.page?.faviconData,
            `data:image/png;base64,${btoa(String.fromCharCode(...PUBLIC_ICON))}`,
          );
          assert.equal((site.hits.get("/icon.png") ?? 0) - before, 1);
          assert.deepEqual(contacts(), { secret: 0, envProxy: 0 });
        } finally {
          await advisory.close();
        }
      },
    );
  } finally {
    restore();
    await capturer.close();
    await site.close();
  }
});
