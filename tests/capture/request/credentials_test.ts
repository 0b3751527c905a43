/**
 * cookies and headers through the route with a test capturer: what is refused (naming the
 * header, never echoing a value), that the job carries them apart from its options, and that
 * a capture with them never touches the cache or another request's render.
 */
import assert from "node:assert/strict";
import { MAX_COOKIE_BYTES, MAX_HEADERS } from "../../../lib/capture/request/credentials.ts";
import { createCaptureApp } from "../../../testing/capture_app.ts";
import { assertEnvelope } from "../../../testing/envelope.ts";

const URL_A = "https://example.com/a";
const SECRET = "s3cret-value-4411";

Deno.test("browser-controlled and hop-by-hop headers are refused, named, values never echoed", async () => {
  const t = await createCaptureApp();
  try {
    for (
      const name of [
        "Host",
        "Cookie",
        "content-length",
        "Connection",
        "Transfer-Encoding",
        "Proxy-Authorization",
        "Sec-Fetch-Site",
        "Origin",
        "User-Agent",
      ]
    ) {
      const res = await t.shoot({ url: URL_A, headers: { "X-Ok": SECRET, [name]: SECRET } });
      const body = await assertEnvelope(t.app, res, 400, "invalid_request");
      assert.match(String(body.message), new RegExp(name), name);
      assert.ok(String(body.hint).length > 20);
      assert.doesNotMatch(JSON.stringify(body), new RegExp(SECRET));
    }
    assert.equal(t.capture.jobs.length, 0);
    assert.doesNotMatch(JSON.stringify(t.log.lines), new RegExp(SECRET));
  } finally {
    await t.close();
  }
});

Deno.test("malformed or oversized cookies and headers are 400s without their values", async () => {
  const t = await createCaptureApp();
  const cases: Record<string, unknown>[] = [
    { headers: { "Bad Name": SECRET } },
    { headers: { "X-Token": `${SECRET}\r\nX-Injected: 1` } },
    { headers: { "X-Token": 1 } },
    {
      headers: Object.fromEntries(
        Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`X-${i}`, "1"]),
      ),
    },
    { headers: { "X-Big": "a".repeat(9000) } },
    { cookies: [{ name: "session", value: `${SECRET}; other=1` }] },
    { cookies: [{ name: "bad name", value: SECRET }] },
    { cookies: [{ name: "session" }] },
    { cookies: Array.from({ length: 51 }, (_, i) => ({ name: `c${i}`, value: "1" })) },
    {
      cookies: Array.from(
        { length: 3 },
        (_, i) => ({ name: `c${i}`, value: "a".repeat(MAX_COOKIE_BYTES / 2) }),
      ),
    },
    { cookies: { session: SECRET } },
  ];
  try {
    for (const body of cases) {
      const res = await t.shoot({ url: URL_A, ...body });
      const envelope = await assertEnvelope(t.app, res, 400, "invalid_request");
      assert.doesNotMatch(JSON.stringify(envelope), new RegExp(SECRET), JSON.stringify(body));
    }
    assert.equal(t.capture.jobs.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("a capture with credentials is private: no cache, no shared render, no key", async () => {
  const t = await createCaptureApp();
  const credentials = {
    cookies: [{ name: "session", value: SECRET }],
    headers: { Authorization: `Bearer ${SECRET}` },
  };
  try {
    const plain = await t.shoot({ url: URL_A });
    assert.equal(plain.status, 200);
    await plain.body?.cancel();
    // Two identical private requests at once render twice: nobody shares another's login.
    t.capture.hold();
    const both = [t.shoot({ url: URL_A, ...credentials }), t.shoot({ url: URL_A, ...credentials })];
    await new Promise((resolve) => setTimeout(resolve, 20));
    t.capture.release();
    for (const res of await Promise.all(both)) {
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal((await res.json()).cached, false, "the plain entry is not served");
    }
    assert.equal(t.capture.jobs.length, 3);
    assert.deepEqual(t.capture.jobs[1], {
      url: URL_A,
      deviceType: "desktop",
      colorScheme: "light",
      credentials,
    });
    const after = await t.shoot({ url: URL_A });
    const json = await after.json();
    assert.equal(json.cached, true);
    assert.equal(t.capture.jobs.length, 3, "the plain entry is still the first render's");
    assert.doesNotMatch(JSON.stringify(t.log.lines), new RegExp(SECRET));
  } finally {
    await t.close();
  }
});
