/**
 * The favicon on the local backend with ALLOW_PRIVATE_NETWORK off and hostile NO_PROXY and
 * HTTP(S)_PROXY in the environment: every icon vector (testing/favicon_steps.ts) leaves through
 * the capture's egress proxy session or not at all. Names resolve through an injected resolver;
 * the proxy's dial seam sends the one fake public address to the loopback "public site".
 */
import { createChromiumCapturer } from "../../../lib/capture/local/capturer.ts";
import type { Resolver } from "../../../lib/egress/address.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { PUBLIC_IP, publicOnLoopback } from "../../../testing/fleet_proxy.ts";
import { forbiddenIconSteps, publicIconSteps } from "../../../testing/favicon_steps.ts";
import { faviconSite } from "../../../testing/favicon_vectors.ts";
import { hostileProxyEnv, setEnv, tcpTrap } from "../../../testing/hostile_env.ts";

const resolver: Resolver = (host) =>
  Promise.resolve(
    host === "public.test" ? [PUBLIC_IP] : host === "localhost" ? ["127.0.0.1", "::1"] : [],
  );

Deno.test("local backend: the favicon leaves through the boundary, once", async (t) => {
  let fallback: string | null = null;
  const { routes, endless } = faviconSite({ fallbackTo: () => fallback });
  const site = servePages(routes);
  using envProxy = tcpTrap();
  using secret = tcpTrap("127.0.0.1");
  using secret6 = tcpTrap("::1", secret.port);
  const restore = setEnv(hostileProxyEnv(`http://127.0.0.1:${envProxy.port}`));
  const capturer = createChromiumCapturer({
    timeoutMs: 10_000,
    allowPrivateNetwork: false,
    resolver,
    // The public site listens on loopback; the seam maps the fake public address to its port.
    dial: (address, port, signal) =>
      publicOnLoopback()(address, address === PUBLIC_IP ? site.port : port, signal),
    log: createMemoryLogger(),
  });
  const harness = {
    capturer,
    site,
    endless,
    setFallback: (to: string | null) => void (fallback = to),
    secretPort: secret.port,
    contacts: () => ({ secret: secret.contacts + secret6.contacts, envProxy: envProxy.contacts }),
  };
  try {
    await forbiddenIconSteps(t, harness);
    await publicIconSteps(t, harness);
  } finally {
    restore();
    await capturer.close();
    await site.close();
  }
});
