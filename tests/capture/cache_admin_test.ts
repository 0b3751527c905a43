import assert from "node:assert/strict";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { eventually } from "../../testing/wait.ts";
import { createKvStore } from "../../lib/store/deno_kv.ts";
import { SYSTEM_CLOCK } from "../../lib/clock.ts";

const TOKEN = "s3cret-admin-token-of-32-characters";
const ADMIN = { env: { CACHE_ADMIN_TOKEN: TOKEN } };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function purge(
  app: { request(path: string, init?: RequestInit): Response | Promise<Response> },
  query: string,
  headers: Record<string, string> = bearer(TOKEN),
) {
  return await app.request(`/api/cache${query}`, { method: "DELETE", headers });
}

/** Captures every device and scheme of `url` so there is something to purge. */
async function warm(t: Awaited<ReturnType<typeof createCaptureApp>>, url: string) {
  for (const deviceType of ["desktop", "mobile"]) {
    for (const colorScheme of ["light", "dark"]) {
      const res = await t.shoot({ url, deviceType, colorScheme });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
  }
  await eventually(() => t.deps.screenshots.stats().flights === 0, "the cache write ended");
}

async function isCached(t: Awaited<ReturnType<typeof createCaptureApp>>, url: string) {
  return (await (await t.shoot({ url })).json()).cached as boolean;
}

Deno.test("without CACHE_ADMIN_TOKEN the endpoint does not exist", async () => {
  const t = await createCaptureApp();
  try {
    await assertEnvelope(t.app, await purge(t.app, "?all=true"), 404, "not_found");
    await assertEnvelope(t.app, await t.app.request("/api/cache"), 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("a missing or wrong bearer token gets 401 unauthorized", async () => {
  const t = await createCaptureApp(ADMIN);
  try {
    for (
      const headers of [
        {},
        bearer("wrong"),
        bearer(`${TOKEN}x`),
        bearer(TOKEN.slice(0, -1)),
        { Authorization: TOKEN },
        { Authorization: `Basic ${btoa(`admin:${TOKEN}`)}` },
      ]
    ) {
      const res = await purge(t.app, "?all=true", headers);
      await assertEnvelope(t.app, res, 401, "unauthorized");
      assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
    }
  } finally {
    await t.close();
  }
});

Deno.test("?url= purges every device and scheme of that URL only", async () => {
  const t = await createCaptureApp(ADMIN);
  try {
    await warm(t, "https://example.com/a");
    await warm(t, "https://example.com/b");
    const res = await purge(t.app, `?url=${encodeURIComponent("HTTPS://Example.com:443/a#x")}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.deepEqual(await res.json(), { purged: 4 });
    assert.equal(await isCached(t, "https://example.com/a"), false);
    assert.equal(await isCached(t, "https://example.com/b"), true);
    assert.deepEqual(await (await purge(t.app, "?url=https://example.com/nothing")).json(), {
      purged: 0,
    });
  } finally {
    await t.close();
  }
});

Deno.test("?all=true purges every capture", async () => {
  const t = await createCaptureApp(ADMIN);
  try {
    await warm(t, "https://example.com/a");
    await warm(t, "https://example.org/");
    const res = await purge(t.app, "?all=true");
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { purged: 8 });
    assert.equal(await isCached(t, "https://example.org/"), false);
  } finally {
    await t.close();
  }
});

Deno.test("a purge without a valid target is a 400", async () => {
  const t = await createCaptureApp(ADMIN);
  try {
    await assertEnvelope(t.app, await purge(t.app, ""), 400, "invalid_request");
    await assertEnvelope(t.app, await purge(t.app, "?all=yes"), 400, "unsupported_value");
    await assertEnvelope(t.app, await purge(t.app, "?url=file:///etc"), 400, "invalid_url");
  } finally {
    await t.close();
  }
});

Deno.test("the cache endpoint is absent from /openapi.json and /llms*.txt", async () => {
  const t = await createCaptureApp(ADMIN);
  try {
    const document = await (await t.app.request("/openapi.json")).text();
    assert.equal(document.includes("/api/cache"), false);
    assert.ok(JSON.parse(document).paths["/api/screenshot"], "the document is complete");
    for (const path of ["/llms.txt", "/llms-full.txt"]) {
      const text = await (await t.app.request(path)).text();
      assert.equal(text.includes("/api/cache"), false, path);
      assert.equal(text.includes("CACHE_ADMIN_TOKEN"), false, path);
    }
  } finally {
    await t.close();
  }
});

Deno.test("failed admin attempts are throttled per IP: 10 a minute, then 429 even with the token", async () => {
  const t = await createCaptureApp({ env: { CACHE_ADMIN_TOKEN: TOKEN, TRUST_PROXY_HOPS: "1" } });
  const from = (ip: string, headers: Record<string, string> = {}) => ({
    ...headers,
    "X-Forwarded-For": ip,
  });
  try {
    for (let i = 0; i < 10; i++) {
      await assertEnvelope(
        t.app,
        await purge(t.app, "?all=true", from("192.0.2.7")),
        401,
        "unauthorized",
      );
    }
    for (const headers of [from("192.0.2.7"), from("192.0.2.7", bearer(TOKEN))]) {
      const res = await purge(t.app, "?all=true", headers);
      const body = await assertEnvelope(t.app, res, 429, "rate_limited");
      const retryAfter = Number(res.headers.get("retry-after"));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(body.retryAfter, retryAfter);
    }
    // Another address is not affected, and a right token there works.
    const other = await purge(t.app, "?all=true", from("192.0.2.8", bearer(TOKEN)));
    assert.equal(other.status, 200);
    await other.body?.cancel();
    const refused = t.log.lines.filter((l) =>
      l.msg === "operator token refused" && l.realm === "cache-admin"
    );
    assert.equal(refused.length, 10);
    assert.equal(JSON.stringify(t.log.lines).includes(TOKEN), false, "the token is never logged");
  } finally {
    await t.close();
  }
});

Deno.test("a purge covers captures whose cache write is still running", async () => {
  // Blob writes wait for the test: the answers (served before their write lands) are out, the
  // writes are not, when the purge arrives.
  const kv = await Deno.openKv(":memory:");
  const store = createKvStore(kv, SYSTEM_CLOCK);
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const setBlob = store.setBlob.bind(store);
  store.setBlob = async (...args) => (await held, await setBlob(...args));
  const t = await createCaptureApp({ ...ADMIN, deps: { store } });
  try {
    for (const colorScheme of ["light", "dark"]) {
      const res = await t.shoot({ url: "https://a.example/", colorScheme });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    assert.equal(await isCached(t, "https://a.example/"), true, "served while being written");
    const purging = purge(t.app, `?url=${encodeURIComponent("https://a.example/")}`);
    release();
    const res = await purging;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { purged: 2 });
    assert.equal(await isCached(t, "https://a.example/"), false, "nothing came back");
  } finally {
    await t.close();
    await store.close();
  }
});
