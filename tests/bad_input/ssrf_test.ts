/**
 * The SSRF corpus through the real routes: capture targets through POST /api/screenshot with
 * ALLOW_PRIVATE_NETWORK off, and allowlist tricks through GET /api/image-proxy with every media
 * host played by a loopback server that records its hits.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { allowedMediaHost } from "../../lib/media/allowlist.ts";
import { MEDIA_HOSTS } from "../../lib/upstreams.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { appWithUpstreams, startUpstream, TINY_PNG } from "../../testing/loopback_upstream.ts";
import {
  CAPTURE_SSRF,
  MEDIA_EQUIVALENTS,
  MEDIA_TRICKS,
  MEDIA_UNPARSEABLE,
} from "../../testing/ssrf_corpus.ts";
import { within60s } from "../../testing/fault_checks.ts";

async function assertHealthy(app: { request(path: string): Response | Promise<Response> }) {
  const res = await app.request("/healthz");
  assert.equal(res.status, 200);
  assert.equal((await res.json()).status, "ok");
}

Deno.test("every SSRF spelling in the corpus is 400 invalid_url and never captured", async () => {
  const t = await createCaptureApp();
  try {
    for (const [url, trick] of CAPTURE_SSRF) {
      const res = await within60s(trick, t.shoot({ url }));
      await assertEnvelope(t.app, res, 400, "invalid_url").catch((error) => {
        throw new Error(`${trick}: ${JSON.stringify(url)}: ${error.message}`);
      });
    }
    assert.equal(t.capture.jobs.length, 0, "the capturer was never called");
    await assertHealthy(t.app);
    // The same request with a public URL still captures: the refusals were about the URLs.
    const ok = await t.shoot({ url: "https://example.com/" });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    assert.equal(t.capture.jobs.length, 1);
  } finally {
    await t.close();
  }
});

/** Four loopback media hosts, each recording what reached it. */
async function mediaHosts() {
  const hosts = MEDIA_HOSTS.map(() =>
    startUpstream(() => new Response(TINY_PNG, { headers: { "content-type": "image/png" } }))
  );
  const media = Object.fromEntries(MEDIA_HOSTS.map((host, i) => [host, hosts[i].origin]));
  const t = await appWithUpstreams({ media });
  const hits = () => hosts.reduce((n, h) => n + h.seen.length, 0);
  return {
    ...t,
    hosts: Object.fromEntries(MEDIA_HOSTS.map((host, i) => [host, hosts[i]])),
    hits,
    proxy: (url: string) =>
      within60s(
        url,
        Promise.resolve(t.app.request(`/api/image-proxy?url=${encodeURIComponent(url)}`)),
      ),
    async [Symbol.asyncDispose]() {
      await t.close();
      for (const h of hosts) await h.close();
    },
  };
}

Deno.test("allowlist tricks are 403, unparseable URLs 400, and neither reaches a media host", async () => {
  await using m = await mediaHosts();
  for (const [url, trick] of MEDIA_TRICKS) {
    const res = await m.proxy(url);
    assert.equal(res.status, 403, `${trick}: ${JSON.stringify(url)}`);
    assert.equal(res.headers.get("access-control-allow-origin"), "*", trick);
    const body = await assertEnvelope(m.app, res, 403, "forbidden_domain");
    assert.match(String(body.hint), /pbs\.twimg\.com/, "the hint names the allowed hosts");
    assert.equal(m.hits(), 0, `${trick}: ${JSON.stringify(url)} reached an upstream`);
  }
  for (const [url, trick] of MEDIA_UNPARSEABLE) {
    const res = await m.proxy(url);
    assert.equal(res.status, 400, `${trick}: ${JSON.stringify(url)}`);
    await assertEnvelope(m.app, res, 400, "invalid_url");
    assert.equal(m.hits(), 0, `${trick}: ${JSON.stringify(url)} reached an upstream`);
  }
  await assertHealthy(m.app);
});

Deno.test("spellings that normalise to an allowlisted host are fetched from that host only", async () => {
  await using m = await mediaHosts();
  for (const [url, host, why] of MEDIA_EQUIVALENTS) {
    const before = m.hosts[host].seen.length;
    const res = await m.proxy(url);
    assert.equal(res.status, 200, why);
    assert.equal(res.headers.get("content-type"), "image/png");
    await res.body?.cancel();
    assert.equal(m.hosts[host].seen.length, before + 1, why);
    assert.equal(m.hosts[host].seen.at(-1)?.url.pathname, new URL(url).pathname, why);
  }
  assert.equal(m.hits(), MEDIA_EQUIVALENTS.length, "no other host was asked");
});

/** A generated media URL and whether the allowlist must accept it, decided from its parts. */
const mediaUrl = fc.record({
  scheme: fc.constantFrom("https", "HTTPS", "Https", "http", "ftp", "wss"),
  userinfo: fc.constantFrom("", "", "", "@", "user@", "user:pw@", "pbs.twimg.com@", ":@"),
  host: fc.oneof(
    fc.constantFrom(...MEDIA_HOSTS),
    fc.constantFrom(...MEDIA_HOSTS).map((h) => h.toUpperCase()),
    fc.tuple(fc.constantFrom(...MEDIA_HOSTS), fc.constantFrom(".", ".evil.test", "x", "-")).map(
      ([h, s]) => h + s,
    ),
    fc.tuple(fc.constantFrom("x.", "evil", "a-"), fc.constantFrom(...MEDIA_HOSTS)).map(([p, h]) =>
      p + h
    ),
    fc.constantFrom("twimg.com", "pbs.twimg.co", "127.0.0.1", "[::1]", "evil.test"),
    fc.domain(),
  ),
  port: fc.constantFrom("", "", "", ":443", ":0443", ":80", ":8443", ":", ":65536"),
  path: fc.constantFrom("/x.jpg", "/media/a.png?name=small", "/?u=pbs.twimg.com", "#pbs.twimg.com"),
}).map((p) => {
  const host = p.host.toLowerCase();
  const allowed = p.scheme.toLowerCase() === "https" && ["", "@", ":@"].includes(p.userinfo) &&
    ["", ":443", ":0443", ":"].includes(p.port) &&
    (MEDIA_HOSTS as readonly string[]).includes(host);
  return { url: `${p.scheme}://${p.userinfo}${p.host}${p.port}${p.path}`, allowed, host };
});

Deno.test("the allowlist matcher accepts exactly https on the four hosts, no port or userinfo", () => {
  fc.assert(
    fc.property(mediaUrl, ({ url, allowed, host }) => {
      const parsed = URL.parse(url);
      const got = parsed ? allowedMediaHost(parsed) : null;
      assert.equal(got, allowed ? host : null, url);
    }),
    { numRuns: 1000 },
  );
  // Whatever the string, a match is one of the four hosts and nothing else.
  fc.assert(
    fc.property(fc.oneof(fc.webUrl(), fc.string()), (text) => {
      const parsed = URL.parse(text);
      const got = parsed ? allowedMediaHost(parsed) : null;
      if (got) assert.ok((MEDIA_HOSTS as readonly string[]).includes(got), text);
    }),
    { numRuns: 500 },
  );
});

Deno.test("through the proxy route, only allowlisted URLs reach their own host", async () => {
  await using m = await mediaHosts();
  await fc.assert(
    fc.asyncProperty(mediaUrl, async ({ url, allowed, host }) => {
      const before = m.hits();
      const res = await m.proxy(url);
      if (allowed) {
        assert.equal(res.status, 200, url);
        await res.body?.cancel();
        assert.equal(m.hits(), before + 1, url);
        assert.equal(m.hosts[host].seen.at(-1)?.method, "GET");
      } else {
        const status = res.status;
        assert.ok(status === 400 || status === 403, `${url}: ${status}`);
        await assertEnvelope(
          m.app,
          res,
          status,
          status === 403 ? "forbidden_domain" : "invalid_url",
        );
        assert.equal(m.hits(), before, `${url} reached an upstream`);
      }
    }),
    { numRuns: 300 },
  );
  await assertHealthy(m.app);
});
