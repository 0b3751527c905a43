import assert from "node:assert/strict";
import { NEGATIVE_TTL_MS, POST_TTL_MS } from "../../lib/posts/cache.ts";
import { SYNDICATION_FEATURES, syndicationToken } from "../../lib/posts/syndication.ts";
import { manualClock } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { appWithUpstreams, startUpstream, untilAborted } from "../../testing/loopback_upstream.ts";

const POST = { __typename: "Tweet", id_str: "20", text: "just setting up my twttr" };

const TOMBSTONES: Record<string, string> = {
  "301": "You’re unable to view this Post because this account owner limits who can view " +
    "their Posts. Learn more",
  "302": "This Post was deleted by the Post author. Learn more",
  "303": "This Post has been withheld in Germany in response to a legal demand. Learn more",
};

/** The syndication interface, played on loopback: the post id picks the answer. */
function syndication() {
  return startUpstream(async (req, url) => {
    const id = url.searchParams.get("id") ?? "";
    const json = (body: unknown, status = 200) => Response.json(body, { status });
    if (id === "20") return json(POST);
    if (id === "1") return json({});
    if (id in TOMBSTONES) {
      return json({ __typename: "TweetTombstone", tombstone: { text: { text: TOMBSTONES[id] } } });
    }
    if (id === "304") return json({ __typename: "TweetTombstone" });
    if (id === "500") return json({ error: "boom" }, 500);
    if (id === "501") {
      return new Response("<html>hi</html>", { headers: { "content-type": "text/html" } });
    }
    if (id === "502") return json([1, 2]);
    if (id === "503") {
      return new Response("{not json", { headers: { "content-type": "application/json" } });
    }
    if (id === "504") {
      await untilAborted(req);
      return json(POST);
    }
    if (id === "70") return json({ ...POST, id_str: "70", padding: "x".repeat(100_000) });
    return json({ error: "not found" }, 404);
  });
}

async function setup(options: { clock?: ReturnType<typeof manualClock>; timeoutMs?: number } = {}) {
  const upstream = syndication();
  const t = await appWithUpstreams({
    syndicationOrigin: upstream.origin,
    postTimeoutMs: options.timeoutMs ?? 5_000,
  }, { deps: options.clock ? { clock: options.clock } : {} });
  return {
    ...t,
    upstream,
    get: (id: string) => t.app.request(`/api/post/${id}`),
    async [Symbol.asyncDispose]() {
      await t.close();
      await upstream.close();
    },
  };
}

Deno.test("getPost answers 200 { data } with the payload as returned, asked like react-tweet", async () => {
  await using s = await setup();
  const res = await s.get("20");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(await res.json(), { data: POST });
  const [seen] = s.upstream.seen;
  assert.equal(seen.url.pathname, "/tweet-result");
  assert.deepEqual([...seen.url.searchParams.keys()], ["id", "lang", "features", "token"]);
  assert.equal(seen.url.searchParams.get("lang"), "en");
  assert.equal(seen.url.searchParams.get("features"), SYNDICATION_FEATURES);
  assert.equal(seen.url.searchParams.get("token"), syndicationToken("20"));
  assert.equal(seen.headers.get("cookie"), null);
});

Deno.test("a cached post is served from the store until its TTL passes", async () => {
  const clock = manualClock();
  await using s = await setup({ clock });
  for (let i = 0; i < 3; i++) assert.equal((await s.get("20")).status, 200);
  assert.equal(s.upstream.seen.length, 1, "one upstream call for three lookups");
  assert.deepEqual(s.log.lines.filter((l) => l.msg === "request").map((l) => l.cache), [
    "miss",
    "hit",
    "hit",
  ]);
  clock.advance(POST_TTL_MS + 1);
  const res = await s.get("20");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { data: POST });
  assert.equal(s.upstream.seen.length, 2, "expired entries are fetched again");
});

Deno.test("unknown posts (upstream 404 or an empty object) are 404 not_found, cached briefly", async () => {
  assert.ok(NEGATIVE_TTL_MS < POST_TTL_MS, "negative answers live shorter than posts");
  const clock = manualClock();
  await using s = await setup({ clock });
  for (const id of ["99", "1"]) {
    const body = await assertEnvelope(s.app, await s.get(id), 404, "not_found", "PostError");
    assert.equal(body.data, null);
    assert.equal(body.reason, undefined);
  }
  await (await s.get("99")).body?.cancel();
  assert.equal(s.upstream.seen.length, 2, "the second 99 came from the negative cache");
  clock.advance(NEGATIVE_TTL_MS + 1);
  await assertEnvelope(s.app, await s.get("99"), 404, "not_found", "PostError");
  assert.equal(s.upstream.seen.length, 3);
});

Deno.test("tombstoned posts are 404 not_found with a hint that says which", async () => {
  await using s = await setup();
  const cases = [
    ["301", "private", /private/],
    ["302", "deleted", /deleted/],
    ["303", "withheld", /withheld/],
    ["304", "unavailable", /private, deleted or withheld/],
  ] as const;
  for (const [id, reason, hint] of cases) {
    const body = await assertEnvelope(s.app, await s.get(id), 404, "not_found", "PostError");
    assert.equal(body.data, null);
    assert.equal(body.reason, reason);
    assert.match(String(body.hint), hint);
  }
});

Deno.test("ids that are not 1 to 40 digits are 400 invalid_request with data null", async () => {
  await using s = await setup();
  for (const id of ["abc", "12a", "-1", "1.5", "%20", "1".repeat(41)]) {
    const body = await assertEnvelope(s.app, await s.get(id), 400, "invalid_request", "PostError");
    assert.equal(body.data, null);
    assert.match(String(body.error), /^id: /);
  }
  assert.equal(s.upstream.seen.length, 0, "nothing invalid reaches the upstream");
  // 40 digits is still valid: it reaches the upstream, which does not know it.
  await assertEnvelope(s.app, await s.get("9".repeat(40)), 404, "not_found", "PostError");
  // Leading zeros name the same post and share its cache entry.
  assert.equal((await s.get("0020")).status, 200);
  assert.equal(s.upstream.seen.at(-1)?.url.searchParams.get("id"), "20");
});

Deno.test("upstream errors and unusable answers are 500 upstream_failed, not cached", async () => {
  await using s = await setup();
  for (const id of ["500", "501", "502", "503"]) {
    const body = await assertEnvelope(s.app, await s.get(id), 500, "upstream_failed", "PostError");
    assert.equal(body.data, null);
    assert.doesNotMatch(JSON.stringify(body), /127\.0\.0\.1|tweet-result/, "no upstream URL leaks");
  }
  const failed = await assertEnvelope(
    s.app,
    await s.get("500"),
    500,
    "upstream_failed",
    "PostError",
  );
  assert.match(String(failed.hint), /HTTP 500/);
  assert.equal(s.upstream.seen.length, 5, "failures are retried, not cached");
});

Deno.test("an unreachable upstream is 500 upstream_failed", async () => {
  const t = await appWithUpstreams({ syndicationOrigin: "http://127.0.0.1:9" });
  try {
    const res = await t.app.request("/api/post/20");
    const body = await assertEnvelope(t.app, res, 500, "upstream_failed", "PostError");
    assert.equal(body.data, null);
  } finally {
    await t.close();
  }
});

Deno.test("an upstream slower than the budget is 500 upstream_timeout", async () => {
  await using s = await setup({ timeoutMs: 50 });
  const body = await assertEnvelope(
    s.app,
    await s.get("504"),
    500,
    "upstream_timeout",
    "PostError",
  );
  assert.equal(body.data, null);
});

Deno.test("identical concurrent lookups share one upstream call", async () => {
  await using s = await setup();
  const answers = await Promise.all(Array.from({ length: 5 }, () => s.get("20")));
  for (const res of answers) {
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { data: POST });
  }
  assert.equal(s.upstream.seen.length, 1);
  const sources = s.log.lines.filter((l) => l.msg === "request").map((l) => l.cache).sort();
  assert.deepEqual(sources, ["coalesced", "coalesced", "coalesced", "coalesced", "miss"]);
});

Deno.test("a payload too large for the store is served, just not cached", async () => {
  await using s = await setup();
  const res = await s.get("70");
  assert.equal(res.status, 200);
  assert.equal((await res.json()).data.id_str, "70");
  assert.ok(s.log.lines.some((l) => l.msg === "post cache write failed"));
});

Deno.test("the OpenAPI document declares the id pattern, its length and PostError", async () => {
  await using s = await setup();
  const doc = await (await s.app.request("/openapi.json")).json();
  const op = doc.paths["/api/post/{id}"].get;
  assert.equal(op.operationId, "getPost");
  const param = op.parameters.find((p: { name: string }) => p.name === "id");
  assert.equal(param.in, "path");
  assert.equal(param.schema.pattern, "^[0-9]+$");
  assert.equal(param.schema.maxLength, 40);
  for (const status of ["400", "404", "500"]) {
    const schema = op.responses[status].content["application/json"].schema;
    assert.equal(schema.$ref, "#/components/schemas/PostError");
  }
  const [base, extension] = doc.components.schemas.PostError.allOf;
  assert.equal(base.$ref, "#/components/schemas/Error", "PostError is the envelope...");
  assert.deepEqual(extension.required, ["data"], "...plus a required data");
  assert.deepEqual(extension.properties.data, {
    type: "null",
    description: "Always null on failure.",
  });
  assert.equal(
    op.responses["200"].content["application/json"].schema.$ref,
    "#/components/schemas/PostResponse",
  );
});
