import assert from "node:assert/strict";
import { MEDIA_SECURITY_HEADERS } from "../../lib/media/proxy.ts";
import type { Upstreams } from "../../lib/upstreams.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { appWithUpstreams, TINY_PNG } from "../../testing/loopback_upstream.ts";
import { PNG_ETAG, PNG_LAST_MODIFIED, startMediaUpstream } from "../../testing/media_upstream.ts";

/** An app whose four media hosts are all one loopback media fixture. */
async function setup(budgets: Partial<Upstreams> = {}) {
  const upstream = startMediaUpstream();
  const t = await appWithUpstreams({ media: upstream.origin, ...budgets });
  return {
    ...t,
    upstream,
    proxy: (url: string, init?: RequestInit) =>
      t.app.request(`/api/image-proxy?url=${encodeURIComponent(url)}`, init),
    async [Symbol.asyncDispose]() {
      await t.close();
      await upstream.close();
    },
  };
}

Deno.test("an image streams through with security headers and only allowlisted upstream headers", async () => {
  await using s = await setup();
  const res = await s.proxy("https://pbs.twimg.com/media/ok.png?name=small#frag", {
    headers: { Cookie: "sid=1", Referer: "https://editor.test/", Authorization: "Bearer x" },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), TINY_PNG);
  assert.equal(res.headers.get("content-length"), String(TINY_PNG.byteLength));
  assert.equal(res.headers.get("etag"), PNG_ETAG);
  assert.equal(res.headers.get("last-modified"), PNG_LAST_MODIFIED);
  assert.equal(res.headers.get("accept-ranges"), "bytes");
  for (const [name, value] of Object.entries(MEDIA_SECURITY_HEADERS)) {
    assert.equal(res.headers.get(name), value, name);
  }
  assert.match(MEDIA_SECURITY_HEADERS["Content-Security-Policy"], /sandbox/);
  assert.equal(res.headers.get("set-cookie"), null, "upstream cookies never reach the client");
  assert.equal(res.headers.get("x-upstream-internal"), null);

  const [seen] = s.upstream.seen;
  assert.equal(seen.url.pathname + seen.url.search, "/media/ok.png?name=small");
  for (const name of ["cookie", "referer", "authorization", "origin"]) {
    assert.equal(seen.headers.get(name), null, `${name} is not sent upstream`);
  }
  assert.equal(seen.headers.get("accept-encoding"), "identity");
});

Deno.test("Range and conditional requests pass through as 206 and 304", async () => {
  await using s = await setup();
  const url = "https://pbs.twimg.com/media/ok.png";
  const partial = await s.proxy(url, { headers: { Range: "bytes=0-3" } });
  assert.equal(partial.status, 206);
  assert.equal(partial.headers.get("content-type"), "image/png");
  assert.deepEqual(new Uint8Array(await partial.arrayBuffer()), TINY_PNG.slice(0, 4));
  assert.equal(partial.headers.get("content-range"), `bytes 0-3/${TINY_PNG.byteLength}`);
  assert.equal(partial.headers.get("content-length"), "4");
  assert.equal(partial.headers.get("accept-ranges"), "bytes");

  const notModified = await s.proxy(url, {
    headers: { "If-None-Match": PNG_ETAG, "If-Modified-Since": PNG_LAST_MODIFIED },
  });
  assert.equal(notModified.status, 304);
  assert.equal(notModified.headers.get("etag"), PNG_ETAG);
  assert.equal(notModified.headers.get("last-modified"), PNG_LAST_MODIFIED);
  assert.equal(notModified.headers.get("access-control-allow-origin"), "*");
  assert.equal(await notModified.text(), "");
  assert.equal(s.upstream.seen[0].headers.get("range"), "bytes=0-3");
  assert.equal(s.upstream.seen[1].headers.get("if-none-match"), PNG_ETAG);
  assert.equal(s.upstream.seen[1].headers.get("if-modified-since"), PNG_LAST_MODIFIED);
});

Deno.test("HEAD answers the headers only and asks the upstream with HEAD", async () => {
  await using s = await setup();
  const res = await s.proxy("https://pbs.twimg.com/media/ok.png", { method: "HEAD" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  assert.equal(res.headers.get("content-length"), String(TINY_PNG.byteLength));
  assert.equal(res.body, null);
  assert.equal(s.upstream.seen[0].method, "HEAD");
});

Deno.test("video, and audio from the video host, are served", async () => {
  await using s = await setup();
  for (const url of ["https://video.twimg.com/clip.mp4", "https://video.twimg.com/track.m4a"]) {
    const res = await s.proxy(url);
    assert.equal(res.status, 200, url);
    assert.match(res.headers.get("content-type") ?? "", /^(video|audio)\/mp4$/);
    assert.equal((await res.arrayBuffer()).byteLength, 8);
  }
});

Deno.test("SVG, HTML, script, untyped bodies and stray audio are 502 upstream_failed", async () => {
  await using s = await setup();
  for (
    const url of [
      "https://pbs.twimg.com/media/pic.svg",
      "https://pbs.twimg.com/media/SVG-upper",
      "https://abs.twimg.com/page.html",
      "https://abs.twimg.com/app.js",
      "https://ton.twimg.com/notype",
      "https://pbs.twimg.com/track.m4a",
    ]
  ) {
    const body = await assertEnvelope(s.app, await s.proxy(url), 502, "upstream_failed");
    assert.match(String(body.hint), /not an image, video or audio/, url);
  }
});

Deno.test("upstream refusals are 502 upstream_failed naming the upstream status", async () => {
  await using s = await setup();
  const cases = [["missing.jpg", 404], ["broken.jpg", 503], ["teapot.jpg", 204]] as const;
  for (const [path, status] of cases) {
    const res = await s.proxy(`https://pbs.twimg.com/${path}`);
    const body = await assertEnvelope(s.app, res, 502, "upstream_failed");
    assert.match(String(body.hint), new RegExp(`HTTP ${status}\\b`));
    assert.doesNotMatch(JSON.stringify(body), /127\.0\.0\.1/, "no upstream address leaks");
  }
});

Deno.test("a path like //evil.test stays a path on the allowlisted host", async () => {
  await using s = await setup();
  const res = await s.proxy("https://pbs.twimg.com//evil.test/x.jpg");
  await assertEnvelope(s.app, res, 502, "upstream_failed");
  assert.equal(s.upstream.seen[0].url.pathname, "//evil.test/x.jpg", "fetched from our fixture");
});

Deno.test("an unreachable media host is 500 upstream_failed, a silent one 500 upstream_timeout", async () => {
  const t = await appWithUpstreams({ media: "http://127.0.0.1:9" });
  try {
    const res = await t.app.request("/api/image-proxy?url=https://pbs.twimg.com/x.jpg");
    await assertEnvelope(t.app, res, 500, "upstream_failed");
  } finally {
    await t.close();
  }
  await using s = await setup({ mediaHeaderTimeoutMs: 50 });
  const body = await assertEnvelope(
    s.app,
    await s.proxy("https://pbs.twimg.com/hang.jpg"),
    500,
    "upstream_timeout",
  );
  assert.match(String(body.hint), /50 ms/);
});

Deno.test("a body over the cap is refused when announced and cut when streamed", async () => {
  await using s = await setup({ mediaMaxBytes: 2048 });
  const declared = await s.proxy("https://pbs.twimg.com/declared-big.jpg");
  const body = await assertEnvelope(s.app, declared, 502, "upstream_failed");
  assert.match(String(body.hint), /2048-byte limit/);

  const streamed = await s.proxy("https://pbs.twimg.com/streamed-big.jpg");
  assert.equal(streamed.status, 200, "headers were sent before the size was known");
  assert.equal(streamed.headers.get("content-type"), "image/jpeg");
  await assert.rejects(streamed.arrayBuffer(), /exceeds 2048 bytes/);
  await s.upstream.cancelled("/streamed-big.jpg");
  assert.ok(s.log.lines.some((l) => l.msg === "media stream cut" && l.reason === "too_large"));
});

Deno.test("a body that stalls is cut after the idle timeout", async () => {
  await using s = await setup({ mediaIdleTimeoutMs: 50 });
  const res = await s.proxy("https://video.twimg.com/stall.mp4");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "video/mp4");
  await assert.rejects(res.arrayBuffer(), /no body progress for 50 ms/);
  await s.upstream.cancelled("/stall.mp4");
});

Deno.test("the OpenAPI document declares proxySocialImage with its statuses", async () => {
  await using s = await setup();
  const doc = await (await s.app.request("/openapi.json")).json();
  const op = doc.paths["/api/image-proxy"].get;
  assert.equal(op.operationId, "proxySocialImage");
  assert.deepEqual(Object.keys(op.responses).sort(), [
    "200",
    "206",
    "304",
    "400",
    "403",
    "500",
    "502",
  ]);
  const url = op.parameters.find((p: { name: string }) => p.name === "url");
  assert.equal(url.in, "query");
  assert.equal(url.required, true);
  assert.ok(op.responses["200"].content["image/*"]);
});
