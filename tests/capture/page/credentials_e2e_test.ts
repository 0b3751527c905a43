/**
 * cookies and headers end to end on the local backend: the target's origin gets them on its
 * document, subresources and fetches; another origin (a second loopback server on another
 * port) never does, not even through a redirect; no log line holds a value; nothing is cached.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../../../testing/app.ts";

const SECRET_COOKIE = "cookie-secret-7f3a";
const SECRET_TOKEN = "token-secret-91bc";

interface Seen {
  path: string;
  cookie: string | null;
  authorization: string | null;
}

/** A loopback server that records each request's cookie and authorization headers. */
function recordingServer(page: (origin: string) => Record<string, string | (() => Response)>) {
  const seen: Seen[] = [];
  let origin = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const { pathname } = new URL(request.url);
    seen.push({
      path: pathname,
      cookie: request.headers.get("cookie"),
      authorization: request.headers.get("authorization"),
    });
    const route = page(origin)[pathname];
    if (typeof route === "function") return route();
    if (route === undefined) return new Response("none", { status: 404 });
    const type = pathname.endsWith(".svg") ? "image/svg+xml" : "text/html; charset=utf-8";
    return new Response(route, { headers: { "content-type": type } });
  });
  origin = `http://127.0.0.1:${server.addr.port}`;
  return { seen, origin, close: () => server.shutdown() };
}

const SQUARE = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" ` +
  `height="10" fill="#00ff00"/></svg>`;

Deno.test("cookies and headers reach the target's origin only, and are never cached or logged", async (t) => {
  const other = recordingServer(() => ({ "/pixel.svg": SQUARE, "/api": "{}", "/landing": "x" }));
  const target = recordingServer((origin) => ({
    "/account": `<!doctype html><body><img src="/own.svg"><img src="${other.origin}/pixel.svg">` +
      `<script>fetch("/data").then(() => fetch("${other.origin}/api"));</script></body>`,
    "/own.svg": SQUARE,
    "/data": "{}",
    "/elsewhere": () =>
      new Response(null, { status: 302, headers: { location: `${other.origin}/landing` } }),
    "/hop": () => new Response(null, { status: 302, headers: { location: `${origin}/account` } }),
  }));
  const harness = await createTestApp({
    env: {
      ALLOW_PRIVATE_NETWORK: "true",
      RATE_LIMIT_PER_MINUTE: "1000",
      CAPTURE_TIMEOUT_MS: "4000",
    },
  });
  const shoot = async (path: string, extra: Record<string, unknown> = {}) => {
    const response = await harness.app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${target.origin}${path}`, ...extra }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    return JSON.parse(text);
  };
  const credentials = {
    cookies: [{ name: "session", value: SECRET_COOKIE }],
    headers: { Authorization: `Bearer ${SECRET_TOKEN}` },
  };
  const clear = () => (target.seen.length = 0, other.seen.length = 0);
  try {
    await t.step(
      "the target's document, image and fetch carry both; the other origin none",
      async () => {
        const json = await shoot("/account", credentials);
        assert.equal(json.cached, false);
        for (const path of ["/account", "/own.svg", "/data"]) {
          const hit = target.seen.find((s) => s.path === path);
          assert.equal(hit?.cookie, `session=${SECRET_COOKIE}`, path);
          assert.equal(hit?.authorization, `Bearer ${SECRET_TOKEN}`, path);
        }
        assert.deepEqual(other.seen.map((s) => s.path).sort(), ["/api", "/pixel.svg"]);
        for (const seen of other.seen) {
          assert.equal(seen.cookie, null, seen.path);
          assert.equal(seen.authorization, null, seen.path);
        }
      },
    );

    await t.step("a redirect to another origin does not carry them", async () => {
      clear();
      await shoot("/elsewhere", credentials);
      assert.equal(target.seen[0]?.authorization, `Bearer ${SECRET_TOKEN}`);
      const landing = other.seen.find((s) => s.path === "/landing");
      assert.ok(landing, "the redirect was followed");
      assert.equal(landing.cookie, null);
      assert.equal(landing.authorization, null);
    });

    await t.step("a same-origin redirect hop keeps them", async () => {
      clear();
      await shoot("/hop", credentials);
      const account = target.seen.find((s) => s.path === "/account");
      assert.equal(account?.authorization, `Bearer ${SECRET_TOKEN}`);
      assert.equal(account?.cookie, `session=${SECRET_COOKIE}`);
    });

    await t.step("such a capture is neither served from nor written to the cache", async () => {
      clear();
      const plain = await shoot("/account");
      assert.equal(plain.cached, false);
      const private1 = await shoot("/account", credentials);
      assert.equal(private1.cached, false, "the plain entry is not served");
      const again = await shoot("/account", credentials);
      assert.equal(again.cached, false, "nor was the private one written");
      const plainAgain = await shoot("/account");
      assert.equal(plainAgain.cached, true);
      assert.notEqual(plainAgain.screenshot, undefined);
      assert.equal(target.seen.filter((s) => s.path === "/account").length, 3);
    });

    await t.step("no log line holds a cookie or header value", () => {
      const text = JSON.stringify(harness.log.lines);
      assert.ok(harness.log.lines.length > 0);
      assert.doesNotMatch(text, new RegExp(`${SECRET_COOKIE}|${SECRET_TOKEN}`));
    });
  } finally {
    await harness.close();
    await target.close();
    await other.close();
  }
});
