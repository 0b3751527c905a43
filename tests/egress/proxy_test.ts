import assert from "node:assert/strict";
import type { Resolver } from "../../lib/egress/address.ts";
import type { Dialer } from "../../lib/egress/policy.ts";
import { createEgressProxy, type EgressSession } from "../../lib/egress/proxy.ts";
import { createMemoryLogger } from "../../lib/log.ts";

// A public address the tests pretend names resolve to; the dial seam sends it to a loopback server.
const PUBLIC_IP = "93.184.215.14";

/** A loopback HTTP server that records what reached it. */
function upstream() {
  const seen: { path: string; connection: string | null }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    seen.push({ path: new URL(req.url).pathname, connection: req.headers.get("connection") });
    return new Response("hello from upstream", { headers: { "content-type": "text/plain" } });
  });
  return { seen, port: server.addr.port, close: () => server.shutdown() };
}

/** A proxy whose dialer maps PUBLIC_IP to `targetPort` on loopback and logs every dial. */
function proxyWith(resolver: Resolver, targetPort: number, allowPrivateNetwork = false) {
  const dialed: string[] = [];
  const dial: Dialer = (address, _port, signal) => {
    dialed.push(address);
    const hostname = address === PUBLIC_IP ? "127.0.0.1" : address;
    return Deno.connect({ hostname, port: targetPort, signal });
  };
  const log = createMemoryLogger();
  const proxy = createEgressProxy(
    { resolver, allowPrivateNetwork, dial, connectTimeoutMs: 2_000 },
    log,
  );
  return { proxy, session: proxy.openSession(), dialed };
}

/** Sends raw bytes to the session and reads until the proxy closes the connection. */
async function exchange(session: EgressSession, raw: string): Promise<string> {
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(session.url).port),
  });
  await conn.write(new TextEncoder().encode(raw));
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(16 * 1024);
  while (true) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
  }
  conn.close();
  return new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
}

const get = (host: string) => `GET http://${host}/page HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
const connect = (authority: string) =>
  `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;

Deno.test("a name that resolves to loopback is refused with 403 and never dialled", async () => {
  const target = upstream();
  const { proxy, session, dialed } = proxyWith(() => Promise.resolve(["127.0.0.1"]), target.port);
  try {
    const answer = await exchange(session, connect(`evil.test:${target.port}`));
    assert.match(answer, /^HTTP\/1\.1 403 Forbidden\r\n/);
    // The reason stays in the session: the browser (and the page) sees one generic refusal.
    assert.match(answer, /X-Shotline-Egress: refused\r\n/);
    assert.doesNotMatch(answer, /loopback|127\.0\.0\.1|forbidden/);
    assert.deepEqual(session.refusals, [
      { host: "evil.test", port: target.port, kind: "forbidden_address", detail: "loopback" },
    ]);
    assert.deepEqual(dialed, []);
    assert.equal(target.seen.length, 0);
  } finally {
    proxy.close();
    await target.close();
  }
});

Deno.test("IP literals are judged without DNS, IPv6 in brackets included", async () => {
  const target = upstream();
  const { proxy, session, dialed } = proxyWith(
    () => Promise.reject(new Error("no DNS")),
    target.port,
  );
  try {
    for (const authority of [`127.0.0.1:${target.port}`, "[::1]:443", "[::ffff:10.0.0.1]:443"]) {
      assert.match(await exchange(session, connect(authority)), /^HTTP\/1\.1 403 /, authority);
    }
    assert.match(await exchange(session, get(`169.254.169.254`)), /^HTTP\/1\.1 403 /);
    assert.deepEqual(session.refusals.map((r) => r.detail), [
      "loopback",
      "loopback",
      "private",
      "cloud-metadata",
    ]);
    assert.deepEqual(dialed, []);
  } finally {
    proxy.close();
    await target.close();
  }
});

Deno.test("a name with any private address among its answers is refused", async () => {
  const target = upstream();
  const resolver = () => Promise.resolve([PUBLIC_IP, "10.0.0.5"]);
  const { proxy, session, dialed } = proxyWith(resolver, target.port);
  try {
    assert.match(await exchange(session, get("mixed.test")), /^HTTP\/1\.1 403 /);
    assert.equal(session.refusals[0].detail, "private");
    assert.deepEqual(dialed, []);
  } finally {
    proxy.close();
    await target.close();
  }
});

Deno.test("plain http is forwarded to the checked IP, one request per connection", async () => {
  const target = upstream();
  const { proxy, session, dialed } = proxyWith(() => Promise.resolve([PUBLIC_IP]), target.port);
  try {
    const answer = await exchange(session, get("public.test"));
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(answer, /\r\nConnection: close\r\n/i);
    assert.match(answer, /hello from upstream$/);
    assert.deepEqual(dialed, [PUBLIC_IP]);
    assert.deepEqual(target.seen, [{ path: "/page", connection: "close" }]);
    assert.deepEqual(session.refusals, []);
  } finally {
    proxy.close();
    await target.close();
  }
});

Deno.test("DNS rebinding: the second lookup's private answer is refused; only checked IPs are dialled", async () => {
  const target = upstream();
  let lookups = 0;
  const resolver = () => Promise.resolve(++lookups === 1 ? [PUBLIC_IP] : ["127.0.0.1"]);
  const { proxy, session, dialed } = proxyWith(resolver, target.port);
  try {
    assert.match(await exchange(session, get("rebind.test")), /^HTTP\/1\.1 200 /);
    assert.match(await exchange(session, get("rebind.test")), /^HTTP\/1\.1 403 /);
    assert.match(await exchange(session, connect("rebind.test:443")), /^HTTP\/1\.1 403 /);
    assert.equal(lookups, 3);
    assert.deepEqual(dialed, [PUBLIC_IP]);
    assert.equal(target.seen.length, 1);
  } finally {
    proxy.close();
    await target.close();
  }
});

Deno.test("names that do not resolve, failed lookups and refused connections are told apart", async () => {
  const closed = upstream();
  await closed.close(); // nothing listens on this port any more
  const resolver: Resolver = (host) =>
    host === "gone.test"
      ? Promise.resolve([])
      : host === "broken.test"
      ? Promise.reject(new Error("SERVFAIL"))
      : Promise.resolve([PUBLIC_IP]);
  const { proxy, session } = proxyWith(resolver, closed.port);
  try {
    assert.match(await exchange(session, connect("gone.test:443")), /^HTTP\/1\.1 403 /);
    assert.match(await exchange(session, get("broken.test")), /^HTTP\/1\.1 403 /);
    const refused = await exchange(session, get("down.test"));
    // Unreachable looks like refused to the page: no reason, no address.
    assert.equal(refused, await exchange(session, get("gone.test")));
    assert.match(refused, /^HTTP\/1\.1 403 Forbidden\r\n/);
    assert.match(refused, /X-Shotline-Egress: refused\r\n/);
    assert.deepEqual(session.refusals.map((r) => [r.host, r.kind, r.detail]), [
      ["gone.test", "unresolvable", "no A or AAAA records"],
      ["broken.test", "dns_failed", "SERVFAIL"],
      ["down.test", "connect_failed", "connection refused"],
      ["gone.test", "unresolvable", "no A or AAAA records"],
    ]);
  } finally {
    proxy.close();
  }
});

Deno.test("CONNECT tunnels bytes both ways until the session closes", async () => {
  const echo = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const echoing = (async () => {
    const conn = await echo.accept();
    const buffer = new Uint8Array(1024);
    const n = await conn.read(buffer);
    if (n !== null) await conn.write(buffer.subarray(0, n));
    await conn.read(buffer).catch(() => null); // until the proxy cuts the tunnel
    conn.close();
  })();
  const { proxy, session, dialed } = proxyWith(() => Promise.resolve([PUBLIC_IP]), echo.addr.port);
  const client = await Deno.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(session.url).port),
  });
  try {
    await client.write(new TextEncoder().encode(connect("tls.test:443")));
    const buffer = new Uint8Array(1024);
    const head = new TextDecoder().decode(buffer.subarray(0, (await client.read(buffer)) ?? 0));
    assert.equal(head, "HTTP/1.1 200 Connection Established\r\n\r\n");
    await client.write(new TextEncoder().encode("ping"));
    const n = await client.read(buffer);
    assert.equal(new TextDecoder().decode(buffer.subarray(0, n ?? 0)), "ping");
    assert.deepEqual(dialed, [PUBLIC_IP]);
    session.close();
    assert.equal(await client.read(buffer).catch(() => null), null, "tunnel cut on close");
    await echoing;
  } finally {
    client.close();
    proxy.close();
    echo.close();
  }
});

Deno.test("with ALLOW_PRIVATE_NETWORK loopback is reached; malformed requests get 400", async () => {
  const target = upstream();
  const { proxy, session } = proxyWith(() => Promise.resolve([]), target.port, true);
  try {
    assert.match(await exchange(session, get(`127.0.0.1:${target.port}`)), /^HTTP\/1\.1 200 /);
    assert.match(await exchange(session, "GET /relative HTTP/1.1\r\n\r\n"), /^HTTP\/1\.1 400 /);
    assert.match(await exchange(session, connect("no-port.test")), /^HTTP\/1\.1 400 /);
    assert.match(await exchange(session, get("user:pw@example.test")), /^HTTP\/1\.1 400 /);
    assert.equal(target.seen.length, 1);
  } finally {
    proxy.close();
    await target.close();
  }
});
