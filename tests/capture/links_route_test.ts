import assert from "node:assert/strict";
import { createTestApp, manualClock } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { METRICS } from "../../lib/telemetry/metrics.ts";

const BASE = "http://localhost";

/** Distinct bytes, so a range that is off by one shows. */
function ramp(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (i * 7 + 3) % 256);
}

/** A test app over a hand-moved clock, with one capture kept under a link. */
async function appWithLink(bytes = ramp(5000), mediaType = "image/png", name = "example.com.png") {
  const clock = manualClock();
  const t = await createTestApp({ deps: { clock } });
  const link = await t.deps.captureLinks.keep({ bytes, mediaType, name }, BASE);
  return { ...t, clock, link, bytes };
}

Deno.test("a capture link answers the exact bytes with their headers", async () => {
  const t = await appWithLink();
  try {
    const before = (await METRICS.captureLinkBytes.get()).values[0]?.value ?? 0;
    assert.equal(t.link.url, `${BASE}/api/captures/${t.link.id}`);
    const res = await t.app.request(t.link.url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), t.bytes);
    assert.equal(res.headers.get("content-length"), "5000");
    assert.equal(res.headers.get("cache-control"), "private, max-age=3600");
    assert.match(res.headers.get("etag") ?? "", /^"[0-9a-f]{32}"$/);
    assert.ok(!res.headers.get("etag")!.includes(t.link.id), "the ETag does not carry the id");
    assert.equal(res.headers.get("content-disposition"), 'inline; filename="example.com.png"');
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("referrer-policy"), "no-referrer");
    assert.equal(res.headers.get("accept-ranges"), "bytes");
    assert.equal(res.headers.get("content-security-policy"), "default-src 'none'; sandbox");
    const after = (await METRICS.captureLinkBytes.get()).values[0]?.value ?? 0;
    assert.equal(after - before, 5000);
    // The access log names the route, never the link's secret id.
    const logged = t.log.lines.filter((l) => l.msg === "request");
    assert.equal(logged.at(-1)?.path, "/api/captures/:id");
    assert.ok(!JSON.stringify(t.log.lines).includes(t.link.id));

    t.clock.advance(1000 * 1000);
    const later = await t.app.request(t.link.url);
    assert.equal(later.headers.get("cache-control"), "private, max-age=2600");
    await later.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("HEAD answers the headers without the bytes; If-None-Match answers 304", async () => {
  const t = await appWithLink();
  try {
    const head = await t.app.request(t.link.url, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "image/png");
    assert.equal(head.headers.get("content-length"), "5000");
    assert.equal(await head.text(), "");
    const etag = head.headers.get("etag")!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const res = await t.app.request(t.link.url, { headers: { "If-None-Match": ifNoneMatch } });
      assert.equal(res.status, 304, ifNoneMatch);
      assert.equal(res.headers.get("etag"), etag);
      assert.equal(res.headers.get("cache-control"), "private, max-age=3600");
      assert.equal(await res.text(), "");
    }
    const stale = await t.app.request(t.link.url, { headers: { "If-None-Match": '"other"' } });
    assert.equal(stale.status, 200);
    await stale.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("one byte range answers 206, a range past the end 416", async () => {
  const t = await appWithLink();
  try {
    const cases: [string, number, number][] = [
      ["bytes=0-99", 0, 99],
      ["bytes=4990-", 4990, 4999],
      ["bytes=-10", 4990, 4999],
      ["bytes=4000-999999", 4000, 4999],
      ["bytes=-999999", 0, 4999],
    ];
    for (const [range, start, end] of cases) {
      const res = await t.app.request(t.link.url, { headers: { Range: range } });
      assert.equal(res.status, 206, range);
      assert.equal(res.headers.get("content-type"), "image/png");
      assert.equal(res.headers.get("content-range"), `bytes ${start}-${end}/5000`, range);
      assert.equal(res.headers.get("content-length"), String(end - start + 1), range);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), t.bytes.subarray(start, end + 1));
    }
    for (const range of ["bytes=5000-", "bytes=9000-9001", "bytes=-0"]) {
      const res = await t.app.request(t.link.url, { headers: { Range: range } });
      const body = await assertEnvelope(t.app, res, 416, "invalid_request");
      assert.equal(res.headers.get("content-range"), "bytes */5000", range);
      assert.match(String(body.hint), /5000 bytes/);
    }
    // Ignored (the whole body): several ranges, another unit, nonsense, a stale If-Range.
    const etag = (await t.app.request(t.link.url, { method: "HEAD" })).headers.get("etag")!;
    for (
      const headers of <Record<string, string>[]> [
        { Range: "bytes=0-1,5-6" },
        { Range: "items=0-1" },
        { Range: "bytes=9-3" },
        { Range: "bytes=0-1", "If-Range": '"other"' },
      ]
    ) {
      const res = await t.app.request(t.link.url, { headers });
      assert.equal(res.status, 200, JSON.stringify(headers));
      assert.equal((await res.arrayBuffer()).byteLength, 5000);
    }
    const current = await t.app.request(t.link.url, {
      headers: { Range: "bytes=0-1", "If-Range": etag },
    });
    assert.equal(current.status, 206);
    assert.equal((await current.arrayBuffer()).byteLength, 2);
  } finally {
    await t.close();
  }
});

Deno.test("an unknown, malformed or expired link is the 404 envelope naming the TTL", async () => {
  const t = await appWithLink();
  try {
    const unknown = `${BASE}/api/captures/${"A".repeat(24)}`;
    for (
      const url of [
        unknown,
        `${BASE}/api/captures/not-an-id`,
        `${BASE}/api/captures/${"a".repeat(300)}`,
      ]
    ) {
      const res = await t.app.request(url);
      const body = await assertEnvelope(t.app, res, 404, "not_found");
      assert.match(String(body.hint), /3600 s .*a new capture makes a new link/, url);
    }
    t.clock.advance(3600 * 1000);
    const expired = await t.app.request(t.link.url);
    await assertEnvelope(t.app, expired, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("capture links are not rate limited; other methods are 405", async () => {
  const t = await appWithLink(ramp(10), "text/markdown; charset=utf-8", "example.com.md");
  try {
    // Three times the capture limit of one client, all answered.
    for (let i = 0; i < 60; i++) {
      const res = await t.app.request(t.link.url);
      assert.equal(res.status, 200, `request ${i + 1}`);
      await res.body?.cancel();
    }
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await t.app.request(t.link.url, { method });
      await assertEnvelope(t.app, res, 405, "method_not_allowed");
      assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
    }
    const options = await t.app.request(t.link.url, { method: "OPTIONS" });
    assert.equal(options.status, 204);
    assert.equal(options.headers.get("allow"), "GET, HEAD, OPTIONS");
  } finally {
    await t.close();
  }
});

Deno.test("a PDF is shown inline without a sandbox; a non-ASCII name has a UTF-8 form", async () => {
  const t = await appWithLink(ramp(10), "application/pdf", "bücher.example.pdf");
  try {
    const res = await t.app.request(t.link.url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/pdf");
    assert.equal(res.headers.get("content-security-policy"), null);
    assert.equal(
      res.headers.get("content-disposition"),
      "inline; filename=\"b_cher.example.pdf\"; filename*=UTF-8''b%C3%BCcher.example.pdf",
    );
    await res.body?.cancel();
  } finally {
    await t.close();
  }
});
