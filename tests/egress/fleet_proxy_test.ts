/**
 * The egress proxy's listener for remote browsers, spoken to over raw TCP as an attacker on the
 * fleet's network would: it is no open proxy. Only the credentials of a capture that is running
 * open a tunnel, and they open it under that capture's policy.
 */
import assert from "node:assert/strict";
import { createFleetProxy } from "../../lib/egress/fleet_proxy.ts";
import type { ProxyCredentials } from "../../lib/egress/proxy_auth.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { servePages } from "../../testing/capture_fixtures.ts";
import { loopbackFleetProxy } from "../../testing/fleet_proxy.ts";

function fixture() {
  const internet = servePages();
  const log = createMemoryLogger();
  const { proxy } = loopbackFleetProxy({ internetPort: internet.port, log });
  const port = Number(new URL(proxy.url).port);
  return {
    proxy,
    log,
    internet,
    /** Sends a CONNECT (with Basic credentials when given); the status and the open socket. */
    async connect(target: string, credentials?: ProxyCredentials | string) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      const auth = typeof credentials === "string"
        ? credentials
        : credentials && `Basic ${btoa(`${credentials.username}:${credentials.password}`)}`;
      const head = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`];
      if (auth) head.push(`Proxy-Authorization: ${auth}`);
      await conn.write(new TextEncoder().encode(`${head.join("\r\n")}\r\n\r\n`));
      const text = await readUntilBlankLine(conn);
      return { status: Number(text.split(" ")[1]), text, conn };
    },
    async close() {
      proxy.close();
      await internet.close();
    },
  };
}

async function readUntilBlankLine(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(4096);
  let text = "";
  while (!text.includes("\r\n\r\n")) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) break;
    text += new TextDecoder().decode(buffer.subarray(0, n));
  }
  return text;
}

/** A status line answered by the proxy, then the connection closed. */
async function expectRefused(
  attempt: Promise<{ status: number; text: string; conn: Deno.Conn }>,
  status: number,
) {
  const { status: got, text, conn } = await attempt;
  conn.close();
  assert.equal(got, status, text);
  return text;
}

const basic = (username: string, password: string) => ({ username, password });

Deno.test("the fleet proxy opens tunnels only with the credentials of a running capture", async (t) => {
  const f = fixture();
  const a = f.proxy.openSession();
  const b = f.proxy.openSession();
  try {
    await t.step("no credentials: 407 with a Basic challenge", async () => {
      const text = await expectRefused(f.connect("public.test:80"), 407);
      assert.match(text, /\r\nProxy-Authenticate: Basic realm="shotline"\r\n/i);
    });
    await t.step("a running capture's credentials: the tunnel opens and carries HTTP", async () => {
      const { status, conn } = await f.connect("public.test:80", a.credentials);
      assert.equal(status, 200);
      await conn.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: public.test\r\n\r\n"));
      assert.match(await readUntilBlankLine(conn), /^HTTP\/1\.1 200 /);
      conn.close();
    });
    await t.step(
      "with credentials, a forbidden destination is refused for that capture",
      async () => {
        await expectRefused(f.connect("evil.test:80", b.credentials), 403);
        assert.deepEqual(b.refusals.map((r) => [r.host, r.kind]), [[
          "evil.test",
          "forbidden_address",
        ]]);
        assert.deepEqual(a.refusals, []);
      },
    );
    await t.step("another capture's password, a made-up user, garbage: 407", async () => {
      const mixed = basic(a.credentials.username, b.credentials.password);
      await expectRefused(f.connect("public.test:80", mixed), 407);
      await expectRefused(f.connect("public.test:80", basic("nobody", "guess")), 407);
      await expectRefused(f.connect("public.test:80", "Basic !!!"), 407);
      await expectRefused(f.connect("public.test:80", "Bearer x"), 407);
    });
    await t.step("credentials of a capture that ended: 407, and its tunnels are cut", async () => {
      const open = await f.connect("public.test:80", a.credentials);
      assert.equal(open.status, 200);
      a.close();
      // The proxy closed the tunnel: the read ends instead of waiting.
      assert.equal(await open.conn.read(new Uint8Array(16)).catch(() => null), null);
      open.conn.close();
      await expectRefused(f.connect("public.test:80", a.credentials), 407);
      const still = await f.connect("public.test:80", b.credentials);
      still.conn.close();
      assert.equal(still.status, 200, "the other capture keeps working");
    });
    await t.step("refusals are logged with their reason, never with the credentials", () => {
      const refused = f.log.lines.filter((l) => l.msg === "egress proxy authentication refused");
      assert.deepEqual(refused.map((l) => l.reason), [
        "wrong_password",
        "unknown",
        "malformed",
        "malformed",
        "stale",
      ]);
      assert.ok(refused.every((l) => l.source === "127.0.0.1"));
      const logged = JSON.stringify(f.log.lines);
      for (const secret of [a.credentials, b.credentials].flatMap((c) => Object.values(c))) {
        assert.ok(!logged.includes(secret), "a credential was logged");
      }
    });
  } finally {
    b.close();
    await f.close();
  }
});

Deno.test("failed proxy authentications are rate-limited per source address", async () => {
  const f = fixture();
  const session = f.proxy.openSession();
  try {
    // Missing credentials (Chromium's first request of every context) do not count.
    for (let i = 0; i < 25; i++) await expectRefused(f.connect("public.test:80"), 407);
    const allowed = await f.connect("public.test:80", session.credentials);
    allowed.conn.close();
    assert.equal(allowed.status, 200);
    for (let i = 0; i < 20; i++) {
      await expectRefused(f.connect("public.test:80", basic("nobody", `guess-${i}`)), 407);
    }
    // Past the limit even the right credentials get 429: nothing is checked for this address.
    const text = await expectRefused(f.connect("public.test:80", session.credentials), 429);
    assert.match(text, /\r\nRetry-After: \d+\r\n/);
  } finally {
    session.close();
    await f.close();
  }
});

Deno.test("a bad EGRESS_PROXY_LISTEN address fails at start-up naming the variable", () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    assert.throws(
      () =>
        createFleetProxy({
          listen: { hostname: "127.0.0.1", port: taken.addr.port },
          policy: {
            resolver: () => Promise.resolve([]),
            allowPrivateNetwork: false,
            connectTimeoutMs: 1,
          },
          log: createMemoryLogger(),
        }),
      /^Error: EGRESS_PROXY_LISTEN=127\.0\.0\.1:\d+: /,
    );
  } finally {
    taken.close();
  }
});
