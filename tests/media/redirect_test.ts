import assert from "node:assert/strict";
import { assertEnvelope } from "../../testing/envelope.ts";
import { appWithUpstreams, startUpstream, TINY_PNG } from "../../testing/loopback_upstream.ts";
import { startMediaUpstream } from "../../testing/media_upstream.ts";

/** pbs.twimg.com on loopback, redirecting in every way a media host (or an attacker) could. */
function redirectingPbs() {
  const redirect = (location: string | null, status = 302) =>
    new Response(null, { status, headers: location ? { location } : {} });
  const upstream = startUpstream((_req, url) => {
    const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
    if (chain) {
      const left = Number(chain[1]);
      return left === 0 ? png() : redirect(`/chain/${left - 1}`, 307);
    }
    switch (url.pathname) {
      case "/media/ok.png":
        return png();
      case "/relative":
        return redirect("/media/ok.png?v=2");
      case "/to-video":
        return redirect("https://video.twimg.com/clip.mp4", 301);
      case "/to-evil":
        return redirect("https://evil.test/x.png");
      case "/to-lookalike":
        return redirect("https://pbs.twimg.com.evil.test/x.png", 308);
      case "/to-loopback":
        return redirect(`${upstream.origin}/media/ok.png`);
      case "/to-http":
        return redirect("http://pbs.twimg.com/media/ok.png");
      case "/to-port":
        return redirect("https://pbs.twimg.com:8443/media/ok.png");
      case "/to-userinfo":
        return redirect("https://user@pbs.twimg.com/media/ok.png");
      case "/loop":
        return redirect("/loop");
      case "/no-location":
        return redirect(null);
      default:
        return new Response("no", { status: 404 });
    }
  });
  return upstream;
}

function png() {
  return new Response(TINY_PNG, { headers: { "content-type": "image/png" } });
}

async function setup() {
  const pbs = redirectingPbs();
  const video = startMediaUpstream();
  const t = await appWithUpstreams({
    media: { "pbs.twimg.com": pbs.origin, "video.twimg.com": video.origin },
  });
  return {
    ...t,
    pbs,
    video,
    proxy: (path: string, init?: RequestInit) =>
      t.app.request(
        `/api/image-proxy?url=${encodeURIComponent(`https://pbs.twimg.com${path}`)}`,
        init,
      ),
    async [Symbol.asyncDispose]() {
      await t.close();
      await pbs.close();
      await video.close();
    },
  };
}

Deno.test("redirects within the allowlist are followed, relative ones on the same host", async () => {
  await using s = await setup();
  const res = await s.proxy("/relative", { headers: { Range: "bytes=0-3" } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), TINY_PNG);
  assert.deepEqual(s.pbs.seen.map((r) => r.url.pathname + r.url.search), [
    "/relative",
    "/media/ok.png?v=2",
  ]);
  assert.equal(s.pbs.seen[1].headers.get("range"), "bytes=0-3", "forwarded on every hop");
  assert.ok(s.pbs.seen.every((r) => r.method === "GET"));

  const moved = await s.proxy("/to-video");
  assert.equal(moved.status, 200);
  assert.equal(moved.headers.get("content-type"), "video/mp4");
  await moved.body?.cancel();
  assert.equal(s.video.seen[0].url.pathname, "/clip.mp4", "the hop went to the video host");
});

Deno.test("a redirect to a host outside the allowlist is 502 and never followed", async () => {
  await using s = await setup();
  for (
    const path of [
      "/to-evil",
      "/to-lookalike",
      "/to-loopback",
      "/to-http",
      "/to-port",
      "/to-userinfo",
    ]
  ) {
    const body = await assertEnvelope(s.app, await s.proxy(path), 502, "upstream_failed");
    assert.match(String(body.hint), /redirected outside the allowlist/, path);
  }
  assert.equal(s.pbs.seen.length, 6, "only the first hop of each was fetched");
  assert.equal(s.video.seen.length, 0);
});

Deno.test("at most 3 redirects are followed", async () => {
  await using s = await setup();
  const three = await s.proxy("/chain/3");
  assert.equal(three.status, 200);
  assert.equal(three.headers.get("content-type"), "image/png");
  await three.body?.cancel();

  const seenBefore = s.pbs.seen.length;
  const four = await assertEnvelope(s.app, await s.proxy("/chain/4"), 502, "upstream_failed");
  assert.match(String(four.hint), /More than 3 redirects/);
  assert.equal(s.pbs.seen.length - seenBefore, 4, "the fourth Location is never fetched");

  const loop = await assertEnvelope(s.app, await s.proxy("/loop"), 502, "upstream_failed");
  assert.match(String(loop.hint), /More than 3 redirects/);
});

Deno.test("a redirect without a Location is 502 upstream_failed", async () => {
  await using s = await setup();
  const body = await assertEnvelope(s.app, await s.proxy("/no-location"), 502, "upstream_failed");
  assert.match(String(body.hint), /redirected/);
});
