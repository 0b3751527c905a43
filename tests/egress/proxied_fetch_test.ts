/**
 * The service's own GET of a page-supplied URL (lib/egress/proxied_fetch.ts) against loopback
 * servers, with hostile proxy variables in this process's environment (NO_PROXY naming loopback,
 * HTTP(S)_PROXY at a trap): forbidden hosts are refused by the egress proxy and never contacted,
 * directly or through a redirect, and the variables move nothing; a public icon still arrives,
 * over http and https, and through the fleet listener with the capture's credentials.
 */
import assert from "node:assert/strict";
import type { Resolver } from "../../lib/egress/address.ts";
import type { Dialer } from "../../lib/egress/policy.ts";
import { createEgressProxy } from "../../lib/egress/proxy.ts";
import { createFleetProxy } from "../../lib/egress/fleet_proxy.ts";
import { type EgressRoute, getThroughProxy } from "../../lib/egress/proxied_fetch.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { hostileProxyEnv, setEnv, tcpTrap } from "../../testing/hostile_env.ts";
import { solidPng } from "../../testing/icons.ts";

// What the fake public names resolve to; the dial seam sends it to the loopback "internet".
const PUBLIC_IP = "93.184.215.14";
const ICON = solidPng(16, [255, 0, 0]);
const tls = (name: string) =>
  Deno.readTextFileSync(new URL(`../../testing/tls/${name}`, import.meta.url));

/** The public site: an icon, and redirects to wherever `?to=` says. */
function publicSite(options: { tls?: boolean } = {}) {
  const hits: string[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
    ...(options.tls ? { cert: tls("syndication_cert.pem"), key: tls("syndication_key.pem") } : {}),
  }, (request) => {
    const url = new URL(request.url);
    hits.push(url.pathname);
    const to = url.searchParams.get("to");
    if (to) return new Response(null, { status: 302, headers: { location: to } });
    return new Response(ICON.slice(), { headers: { "content-type": "image/png" } });
  });
  return { hits, port: server.addr.port, close: () => server.shutdown() };
}

/** An egress proxy whose resolver sends `*.test` and the syndication name to PUBLIC_IP. */
function egressTo(sitePort: number, allowPrivateNetwork = false) {
  const resolver: Resolver = (host) =>
    Promise.resolve(
      host.endsWith(".test") || host === "cdn.syndication.twimg.com"
        ? [PUBLIC_IP]
        : host === "localhost"
        ? ["127.0.0.1", "::1"]
        : [],
    );
  const dial: Dialer = (address, port, signal) =>
    Deno.connect({
      hostname: address === PUBLIC_IP ? "127.0.0.1" : address,
      port: address === PUBLIC_IP ? sitePort : port,
      signal,
    });
  const policy = { resolver, allowPrivateNetwork, dial, connectTimeoutMs: 2_000 };
  return { policy, proxy: createEgressProxy(policy, createMemoryLogger()) };
}

const get = (url: string, route: EgressRoute, extra: { caCerts?: string[] } = {}) =>
  getThroughProxy(url, {
    route,
    headers: { accept: "image/*" },
    maxBytes: 64 * 1024,
    signal: AbortSignal.timeout(10_000),
    ...extra,
  });

Deno.test("hostile NO_PROXY and HTTP(S)_PROXY move nothing: forbidden hosts are never contacted", async () => {
  using trap = tcpTrap();
  using secret = tcpTrap();
  const restore = setEnv(hostileProxyEnv(`http://127.0.0.1:${trap.port}`));
  const site = publicSite();
  const { proxy } = egressTo(site.port);
  const session = proxy.openSession();
  try {
    const s = secret.port;
    const forbidden = [
      `http://127.0.0.1:${s}/secret.png`,
      `http://localhost:${s}/secret.png`,
      `http://[::1]:${s}/secret.png`,
      `http://[::ffff:127.0.0.1]:${s}/secret.png`,
      `https://127.0.0.1:${s}/secret.png`,
      `https://localhost:${s}/secret.png`,
      "http://169.254.169.254/latest/meta-data/",
      `http://public.test/hop?to=${encodeURIComponent(`http://127.0.0.1:${s}/secret.png`)}`,
      `http://public.test/a?to=${
        encodeURIComponent(`/b?to=${encodeURIComponent(`http://localhost:${s}/favicon.ico`)}`)
      }`,
    ];
    const answers = [];
    for (const url of forbidden) answers.push(await get(url, { proxyUrl: session.url }));
    assert.equal(secret.contacts, 0, "the loopback server was reached");
    assert.equal(trap.contacts, 0, "a request went to the environment's proxy");
    for (const [i, answer] of answers.entries()) {
      assert.deepEqual(answer, { ok: false, reason: "refused by the boundary" }, forbidden[i]);
    }
    // Each refusal was the egress proxy's, so it is in the capture's log.
    assert.ok(session.refusals.length >= forbidden.length);

    const kept = await get("http://public.test/icon.png", { proxyUrl: session.url });
    assert.deepEqual(kept, { ok: true, bytes: ICON });
  } finally {
    restore();
    proxy.close();
    await site.close();
  }
});

Deno.test("https goes by CONNECT through the session, TLS checked against the page's name", async () => {
  using trap = tcpTrap();
  const restore = setEnv(hostileProxyEnv(`http://127.0.0.1:${trap.port}`));
  const site = publicSite({ tls: true });
  const { proxy } = egressTo(site.port);
  const session = proxy.openSession();
  const caCerts = [tls("test_ca.pem")];
  try {
    const url = "https://cdn.syndication.twimg.com/icon.png";
    assert.deepEqual(await get(url, { proxyUrl: session.url }, { caCerts }), {
      ok: true,
      bytes: ICON,
    });
    // The same server under a name its certificate does not carry: no bytes.
    const other = await get("https://other.test/icon.png", { proxyUrl: session.url }, { caCerts });
    assert.equal(other.ok, false);
    assert.equal(trap.contacts, 0);
    assert.deepEqual(site.hits, ["/icon.png"]);
  } finally {
    restore();
    proxy.close();
    await site.close();
  }
});

Deno.test("through the fleet listener: with the capture's credentials only", async () => {
  using trap = tcpTrap();
  const restore = setEnv(hostileProxyEnv(`http://127.0.0.1:${trap.port}`));
  const site = publicSite();
  const { policy } = egressTo(site.port);
  const fleet = createFleetProxy({
    listen: { hostname: "127.0.0.1", port: 0 },
    policy,
    log: createMemoryLogger(),
  });
  const session = fleet.openSession();
  try {
    const url = "http://public.test/icon.png";
    const route = { proxyUrl: fleet.localUrl, credentials: session.credentials };
    assert.deepEqual(await get(url, route), { ok: true, bytes: ICON });
    assert.deepEqual(await get("https://public.test/", { proxyUrl: fleet.localUrl }), {
      ok: false,
      reason: "egress proxy answered 407 (proxy_auth_required)",
    });
    const refused = await get(`http://127.0.0.1:${trap.port}/`, route);
    assert.deepEqual(refused, { ok: false, reason: "refused by the boundary" });
    assert.equal(trap.contacts, 0);
  } finally {
    restore();
    fleet.close();
    await site.close();
  }
});
