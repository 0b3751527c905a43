/**
 * Property test of the post id check through GET /api/post/:id, with the syndication upstream
 * played by a loopback server that records its hits: anything but 1 to 40 digits is a 400
 * envelope with data: null and never reaches the upstream.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { assertEnvelope } from "../../testing/envelope.ts";
import { appWithUpstreams, startUpstream } from "../../testing/loopback_upstream.ts";
import { within60s } from "../../testing/fault_checks.ts";

async function setup() {
  const upstream = startUpstream((_req, url) =>
    Response.json({ __typename: "Tweet", id_str: url.searchParams.get("id"), text: "hi" })
  );
  const t = await appWithUpstreams({ syndicationOrigin: upstream.origin });
  return {
    ...t,
    upstream,
    get: (segment: string) =>
      within60s(segment, Promise.resolve(t.app.request(`/api/post/${segment}`))),
    async [Symbol.asyncDispose]() {
      await t.close();
      await upstream.close();
    },
  };
}

const VALID_ID = /^[0-9]{1,40}$/;

/** Checks a refusal: the PostError envelope (data: null) and no new upstream hit. */
async function assertRefused(s: Awaited<ReturnType<typeof setup>>, res: Response, before: number) {
  const body = await assertEnvelope(s.app, res, 400, "invalid_request", "PostError");
  assert.equal(body.data, null);
  assert.equal(s.upstream.seen.length, before, "the upstream was not asked");
}

Deno.test("non-numeric ids of any content are 400 with data: null and never reach upstream", async () => {
  await using s = await setup();
  const id = fc.oneof(
    fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
    fc.string({ unit: fc.constantFrom(..."0123456789-+.eE x%/\\?#;,"), minLength: 1 }),
    fc.constantFrom(
      "1e10",
      "0x10",
      "-1",
      "+1",
      "1.0",
      " 1",
      "1 ",
      "١٢٣",
      "１２３",
      "½",
      "Infinity",
    ),
  ).filter((raw) => !VALID_ID.test(raw) && raw !== "." && raw !== "..");
  await fc.assert(
    fc.asyncProperty(id, async (raw) => {
      const before = s.upstream.seen.length;
      const res = await s.get(encodeURIComponent(raw));
      await assertRefused(s, res, before);
    }),
    { numRuns: 300 },
  );
});

Deno.test("ids over 40 digits are 400 with data: null; up to 40 digits reach upstream", async () => {
  await using s = await setup();
  await fc.assert(
    fc.asyncProperty(fc.stringMatching(/^[0-9]{41,400}$/), async (raw) => {
      const before = s.upstream.seen.length;
      await assertRefused(s, await s.get(raw), before);
    }),
    { numRuns: 200 },
  );
  await fc.assert(
    fc.asyncProperty(fc.stringMatching(/^[1-9][0-9]{0,39}$/), async (raw) => {
      const res = await s.get(raw);
      assert.equal(res.status, 200, raw);
      assert.equal((await res.json()).data.id_str, raw);
    }),
    { numRuns: 100 },
  );
  // Leading zeros name the same post and count towards the 40 digits.
  await assertRefused(s, await s.get(`0${"1".repeat(40)}`), s.upstream.seen.length);
});

Deno.test("percent-encoded and raw path tricks never reach upstream with a non-numeric id", async () => {
  await using s = await setup();
  const tricks = [
    "%31%32%33x",
    "123%00",
    "123%0a",
    "123%2f..%2f..%2fadmin",
    "123%3Fid=1",
    "123%23",
    "%2e%2e%2f1",
    "%E0%A5%A7", // Devanagari one
    "%FF%FE",
    "%",
    "%zz",
    "1%",
  ];
  for (const segment of tricks) {
    const before = s.upstream.seen.length;
    const res = await s.get(segment);
    assert.ok(res.status === 400 || res.status === 404, `${segment}: ${res.status}`);
    const body = await assertEnvelope(
      s.app,
      res,
      res.status,
      res.status === 400 ? "invalid_request" : "not_found",
      res.status === 400 ? "PostError" : "Error",
    );
    if (res.status === 400) assert.equal(body.data, null, segment);
    assert.equal(s.upstream.seen.length, before, `${segment} reached the upstream`);
  }
  const health = await s.app.request("/healthz");
  assert.equal(health.status, 200);
  await health.body?.cancel();
});
