import assert from "node:assert/strict";
import { fetchTweet } from "react-tweet/api";
import { fetchPost, syndicationUrl } from "../../lib/posts/syndication.ts";
import { DEFAULT_UPSTREAMS } from "../../lib/upstreams.ts";
import { impersonatedSyndication } from "../../testing/tls_syndication.ts";
import { startUpstream } from "../../testing/loopback_upstream.ts";

const IDS = ["20", "1628832338187636740", "1", "463440424141459456", "9".repeat(40)];

/** Answers like the CDN for a few ids: a post, an unknown id, a tombstone. */
function answer(_req: Request, url: URL): Response {
  const id = url.searchParams.get("id");
  if (id === "1") return Response.json({});
  if (id === "463440424141459456") return Response.json({ __typename: "TweetTombstone" });
  if (id === "9".repeat(40)) return Response.json({ error: "nope" }, { status: 404 });
  return Response.json({ __typename: "Tweet", id_str: id });
}

Deno.test("our request is byte-identical to react-tweet's fetchTweet for the same id", async () => {
  const cdn = impersonatedSyndication(answer);
  const client = Deno.createHttpClient({ proxy: { url: cdn.proxyUrl }, caCerts: [cdn.caCert] });
  try {
    for (const id of IDS) {
      // react-tweet itself, unmodified, talking to https://cdn.syndication.twimg.com.
      await fetchTweet(id, { client } as RequestInit);
      const ours = syndicationUrl(DEFAULT_UPSTREAMS.syndicationOrigin, id);
      assert.equal(cdn.seen.at(-1)?.target, `${ours.host}:443`);
      assert.equal(cdn.seen.at(-1)?.path, ours.pathname + ours.search, `id ${id}`);
    }
  } finally {
    client.close();
    await cdn.close();
  }
});

Deno.test("fetchPost classifies answers the way react-tweet does", async () => {
  const cdn = impersonatedSyndication(answer);
  const client = Deno.createHttpClient({ proxy: { url: cdn.proxyUrl }, caCerts: [cdn.caCert] });
  const local = startUpstream(answer);
  try {
    for (const id of IDS) {
      const theirs = await fetchTweet(id, { client } as RequestInit);
      const ours = await fetchPost({ fetch, origin: local.origin, id, timeoutMs: 5_000 });
      const expected = theirs.notFound
        ? { kind: "not_found" }
        : theirs.tombstone
        ? { kind: "tombstone", reason: "unavailable" }
        : { kind: "found", data: theirs.data };
      assert.deepEqual(ours, expected, `id ${id}`);
    }
  } finally {
    client.close();
    await cdn.close();
    await local.close();
  }
});
