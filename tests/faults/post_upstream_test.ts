/**
 * Faults of the syndication upstream behind GET /api/post/{id}: it hangs, resets the connection
 * (before or during its answer) or dribbles one byte a second. Each answer is bounded by the
 * post budget and carries the PostError envelope; the service lets go of the upstream socket,
 * caches nothing, and answers the next lookup correctly.
 */
import assert from "node:assert/strict";
import type { ErrorCode } from "../../lib/errors.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { within } from "../../testing/fault_checks.ts";
import { type Fault, startFaultyUpstream } from "../../testing/faulty_upstream.ts";
import { appWithUpstreams } from "../../testing/loopback_upstream.ts";

const POST = { __typename: "Tweet", id_str: "1790000000000000001", text: "still here" };
// Short, so a hang costs the test one second; production uses 5 s (lib/upstreams.ts).
const POST_TIMEOUT_MS = 1_000;
// Far above the budget: a request still pending by then counts as hung.
const HANG_GUARD_MS = 10_000;

async function setup() {
  const upstream = startFaultyUpstream({
    contentType: "application/json",
    body: new TextEncoder().encode(JSON.stringify(POST)),
  });
  const t = await appWithUpstreams({
    syndicationOrigin: upstream.origin,
    postTimeoutMs: POST_TIMEOUT_MS,
  });
  return {
    ...t,
    upstream,
    get: (id: string) => within(t.app.request(`/api/post/${id}`), HANG_GUARD_MS, `post ${id}`),
    async [Symbol.asyncDispose]() {
      await t.close();
      await upstream.close();
    },
  };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** The lookup answers the found post, as a healthy upstream would have it. */
async function assertFound(s: Setup, id: string) {
  const res = await s.get(id);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(await res.json(), { data: POST });
}

const CASES: { fault: Fault; code: ErrorCode; hint: RegExp }[] = [
  { fault: "hang", code: "upstream_timeout", hint: /within 1000 ms/ },
  { fault: "reset", code: "upstream_failed", hint: /could not be reached/ },
  { fault: "reset_mid_body", code: "upstream_failed", hint: /could not be reached/ },
  // One byte a second: the budget covers the whole answer, body included.
  { fault: "dribble", code: "upstream_timeout", hint: /within 1000 ms/ },
];

Deno.test("syndication faults are bounded envelopes, and the next lookup succeeds", async (t) => {
  await using s = await setup();
  for (const [index, { fault, code, hint }] of CASES.entries()) {
    await t.step(`${fault}: 500 ${code}, then a healthy answer`, async () => {
      const id = String(1790000000000000100n + BigInt(index));
      s.upstream.fault = fault;
      const body = await assertEnvelope(s.app, await s.get(id), 500, code, "PostError");
      assert.equal(body.data, null);
      assert.match(String(body.hint), hint);
      assert.doesNotMatch(JSON.stringify(body), /127\.0\.0\.1|tweet-result/, "no upstream URL");
      await s.upstream.allClosed();

      s.upstream.fault = "none";
      // The failure was not cached: the same id is looked up again and found.
      await assertFound(s, id);
      const line = s.log.lines.findLast((l) => l.msg === "request");
      assert.equal(line?.cache, "miss");
    });
  }
  assert.equal(s.upstream.open, 0, "no upstream connection left open");
  assert.ok(!s.log.lines.some((l) => l.level === "error"), "no unexpected error was logged");
});

Deno.test("identical lookups during a hang share one upstream call and all time out", async () => {
  await using s = await setup();
  s.upstream.fault = "hang";
  const id = "1790000000000000200";
  const answers = await Promise.all([s.get(id), s.get(id), s.get(id)]);
  for (const res of answers) {
    const body = await assertEnvelope(s.app, res, 500, "upstream_timeout", "PostError");
    assert.equal(body.data, null);
  }
  assert.equal(s.upstream.requests, 1, "one upstream request for three callers");
  await s.upstream.allClosed();
  s.upstream.fault = "none";
  await assertFound(s, id);
  assert.equal(s.upstream.requests, 2);
});

Deno.test("while the upstream dribbles a cached post is still served and an uncached one is cut at the budget", async () => {
  await using s = await setup();
  const id = "1790000000000000300";
  await assertFound(s, id);
  // A cached answer is served without asking the (now sick) upstream at all.
  s.upstream.fault = "dribble";
  await assertFound(s, id);
  assert.equal(s.upstream.requests, 1);
  // A new id must go upstream, and the dribble is cut by the budget.
  const other = "1790000000000000301";
  await assertEnvelope(s.app, await s.get(other), 500, "upstream_timeout", "PostError");
  await s.upstream.allClosed();
});
