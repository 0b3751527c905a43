import assert from "node:assert/strict";
import { createRenderApp, RENDER_SECRET } from "../../testing/render_app.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { pngSize } from "../../testing/png.ts";
import { signRenderLink } from "../../lib/http/render_links.ts";

const PAGE = { url: "https://example.com/page" };

Deno.test("a signed link answers the PNG itself, rendered once and then from the cache", async () => {
  const t = await createRenderApp();
  try {
    const link = await t.link({ ...PAGE, deviceType: "mobile", hideSelectors: [".chat"] });
    const first = await t.render(link);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("content-type"), "image/png");
    assert.deepEqual(pngSize(new Uint8Array(await first.arrayBuffer())), {
      width: 375,
      height: 667,
    });
    assert.equal(first.headers.get("x-cache"), "miss");
    assert.equal(first.headers.get("age"), "0");
    assert.equal(first.headers.get("cache-control"), "public, max-age=172800");
    assert.match(first.headers.get("etag") ?? "", /^"[0-9a-f]{32}"$/);
    assert.equal(first.headers.get("cross-origin-resource-policy"), "cross-origin");
    assert.equal(first.headers.get("vary"), null);
    const second = await t.render(link);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get("x-cache"), "hit");
    assert.equal(second.headers.get("etag"), first.headers.get("etag"));
    await second.body?.cancel();
    assert.deepEqual(t.capture.jobs, [{
      url: "https://example.com/page",
      deviceType: "mobile",
      colorScheme: "light",
      options: { hideSelectors: [".chat"] },
    }]);
  } finally {
    await t.close();
  }
});

Deno.test("a tampered, extended, unsigned or foreign-secret link is 403 unauthorized", async () => {
  const t = await createRenderApp();
  try {
    const link = await t.link(PAGE);
    const changed = link.replace("example.com", "example.org");
    const added = `${link}&fullPage=true`;
    const unsigned = link.replace(/&signature=[0-9a-f]+$/, "");
    const foreign = await signRenderLink("http://localhost", PAGE, {
      secret: "another-secret-that-is-long-enough-32",
      expiresAt: new Date(t.clock.now() + 60_000),
    });
    for (const url of [changed, added, unsigned, foreign]) {
      const body = await assertEnvelope(t.app, await t.render(url), 403, "unauthorized");
      assert.match(String(body.error), /signature/);
    }
    assert.equal(t.capture.jobs.length, 0, "nothing rendered");
    const refusals = t.log.lines.filter((l) => l.msg === "request" && l.path === "/api/render")
      .map((l) => l.renderLink);
    assert.deepEqual(refusals, ["bad_signature", "bad_signature", "unsigned", "bad_signature"]);
    assert.ok(!JSON.stringify(t.log.lines).includes(RENDER_SECRET), "the secret is never logged");
  } finally {
    await t.close();
  }
});

Deno.test("a link is refused from the second its expires names on", async () => {
  const t = await createRenderApp();
  try {
    const link = await t.link(PAGE, 60);
    t.clock.advance(59_000);
    const valid = await t.render(link);
    assert.equal(valid.status, 200);
    await valid.body?.cancel();
    t.clock.advance(1_000);
    const body = await assertEnvelope(t.app, await t.render(link), 403, "unauthorized");
    assert.equal(body.error, "The render link has expired.");
  } finally {
    await t.close();
  }
});

Deno.test("without RENDER_LINK_SECRET the route does not exist", async () => {
  const t = await createCaptureApp();
  try {
    const link = await signRenderLink("http://localhost", PAGE, {
      secret: RENDER_SECRET,
      expiresAt: new Date(Date.now() + 60_000),
    });
    for (const method of ["GET", "POST", "HEAD", "OPTIONS"]) {
      const res = await t.app.request(link, { method });
      assert.equal(res.status, 404, method);
      await res.body?.cancel();
    }
  } finally {
    await t.close();
  }
});

Deno.test("credentials, forceRefresh, a non-image format and unknown fields are 400", async () => {
  const t = await createRenderApp();
  try {
    const refused: [Record<string, unknown>, string, RegExp][] = [
      [{ cookies: [{ name: "s", value: "1" }] }, "invalid_request", /^cookies is not accepted/],
      [{ headers: { Authorization: "Bearer x" } }, "invalid_request", /^headers is not accepted/],
      [{ forceRefresh: true }, "invalid_request", /^forceRefresh is not accepted/],
      [{ maxAge: 0 }, "invalid_request", /^maxAge 0 is not accepted/],
      [{ format: "pdf" }, "unsupported_value", /^format must be one of: png, jpeg, webp/],
      [{ format: "gif" }, "unsupported_value", /^format must be one of: png, jpeg, webp/],
      [{ zoom: 2 }, "invalid_request", /^zoom is not a capture field/],
      [{ clip: "{x:1" }, "invalid_request", /^clip must be JSON text/],
      [{ deviceType: "tablet" }, "unsupported_value", /^deviceType must be one of/],
      [{ width: 5 }, "invalid_request", /^width: /],
      [{ selector: "main", clip: { x: 0, y: 0, width: 9, height: 9 } }, "invalid_request", /./],
    ];
    for (const [fields, code, message] of refused) {
      const res = await t.render(await t.link({ ...PAGE, ...fields }));
      const body = await assertEnvelope(t.app, res, 400, code as "invalid_request");
      assert.match(String(body.error), message, JSON.stringify(fields));
    }
    const bad = await t.render(await t.link({ url: "ftp://example.com" }));
    await assertEnvelope(t.app, bad, 400, "invalid_url");
    assert.equal(t.capture.jobs.length, 0, "nothing rendered");
  } finally {
    await t.close();
  }
});

Deno.test("If-None-Match with the ETag answers 304 without a body", async () => {
  const t = await createRenderApp();
  try {
    const link = await t.link(PAGE);
    const first = await t.render(link);
    await first.body?.cancel();
    const etag = first.headers.get("etag")!;
    const again = await t.render(link, { "If-None-Match": `"other", ${etag}` });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("etag"), etag);
    assert.equal(again.headers.get("cache-control"), "public, max-age=172800");
    assert.equal(await again.text(), "");
    const changed = await t.render(link, { "If-None-Match": '"other"' });
    assert.equal(changed.status, 200);
    await changed.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("Cache-Control max-age is what stays of the capture's freshness, within the link's life", async () => {
  const t = await createRenderApp({ env: { CACHE_TTL_SECONDS: "3600" } });
  try {
    const link = await t.link(PAGE);
    const maxAgeOf = async (url: string) => {
      const res = await t.render(url);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      return [res.headers.get("cache-control"), res.headers.get("age"), res.headers.get("x-cache")];
    };
    assert.deepEqual(await maxAgeOf(link), ["public, max-age=3600", "0", "miss"]);
    t.clock.advance(600_000);
    assert.deepEqual(await maxAgeOf(link), ["public, max-age=3000", "600", "hit"]);
    t.clock.advance(2_400_000);
    assert.deepEqual(await maxAgeOf(link), ["public, max-age=600", "3000", "hit"]);
    // maxAge shortens it; a link that ends sooner ends it sooner still.
    assert.deepEqual(await maxAgeOf(await t.link({ ...PAGE, maxAge: 3300 })), [
      "public, max-age=300",
      "3000",
      "hit",
    ]);
    assert.deepEqual(await maxAgeOf(await t.link(PAGE, 90)), [
      "public, max-age=90",
      "3000",
      "hit",
    ]);
  } finally {
    await t.close();
  }
});
