import assert from "node:assert/strict";
import {
  canonicalQuery,
  percentEncode,
  renderLinkParams,
  renderLinkSignature,
  signRenderLink,
  verifyRenderLink,
} from "../../lib/http/render_links.ts";

const SECRET = "a-render-link-secret-of-32-chars!";
const NOW = Date.UTC(2026, 0, 1);
const IN_AN_HOUR = new Date(NOW + 3600_000);

const queryOf = (link: string) => new URL(link).searchParams;

Deno.test("the canonical query does not depend on the order of the parameters", () => {
  const params: [string, string][] = [
    ["width", "1440"],
    ["url", "https://example.com/a b?q=1&r=2"],
    ["expires", "1767229200"],
    ["hideSelectors", '[".chat"]'],
  ];
  const canonical = canonicalQuery(params);
  assert.equal(canonicalQuery([...params].reverse()), canonical);
  assert.equal(canonicalQuery([params[2], params[0], params[3], params[1]]), canonical);
  assert.equal(
    canonical,
    "expires=1767229200&hideSelectors=%5B%22.chat%22%5D&" +
      "url=https%3A%2F%2Fexample.com%2Fa%20b%3Fq%3D1%26r%3D2&width=1440",
  );
  // The signature is left out; a repeated name sorts by value.
  assert.equal(canonicalQuery([["b", "2"], ["signature", "ff"], ["b", "1"]]), "b=1&b=2");
});

Deno.test("percent-encoding keeps exactly RFC 3986's unreserved characters", () => {
  assert.equal(percentEncode("AZaz09-._~"), "AZaz09-._~");
  assert.equal(percentEncode("!'()*"), "%21%27%28%29%2A");
  assert.equal(percentEncode("a b+c/é"), "a%20b%2Bc%2F%C3%A9");
});

Deno.test("fields become parameters: strings as they are, everything else as JSON text", () => {
  assert.deepEqual(
    renderLinkParams({
      url: "https://example.com",
      width: 1440,
      fullPage: true,
      hideSelectors: [".chat"],
      clip: { x: 0, y: 0, width: 600, height: 300 },
      selector: undefined,
    }),
    [
      ["url", "https://example.com"],
      ["width", "1440"],
      ["fullPage", "true"],
      ["hideSelectors", '[".chat"]'],
      ["clip", '{"x":0,"y":0,"width":600,"height":300}'],
    ],
  );
});

Deno.test("a signed link verifies and gives back its fields and expiry", async () => {
  const link = await signRenderLink("https://shots.example/", {
    url: "https://example.com/?a=1&b=two words",
    format: "webp",
    timezone: "Etc/GMT+1",
  }, { secret: SECRET, expiresAt: IN_AN_HOUR });
  assert.match(link, /^https:\/\/shots\.example\/api\/render\?url=https%3A%2F%2F/);
  assert.match(link, /&expires=1767229200&signature=[0-9a-f]{64}$/);
  const verdict = await verifyRenderLink(queryOf(link), { secret: SECRET, now: NOW });
  assert.deepEqual(verdict, {
    valid: true,
    fields: [
      ["url", "https://example.com/?a=1&b=two words"],
      ["format", "webp"],
      ["timezone", "Etc/GMT+1"],
    ],
    expiresAt: IN_AN_HOUR.getTime(),
  });
  const expected = await renderLinkSignature(SECRET, [...queryOf(link)]);
  assert.equal(queryOf(link).get("signature"), expected);
});

Deno.test("a changed, added or removed parameter, another secret, no signature: refused", async () => {
  const link = await signRenderLink("http://localhost", { url: "https://example.com" }, {
    secret: SECRET,
    expiresAt: IN_AN_HOUR,
  });
  const verify = (query: URLSearchParams, secret = SECRET) =>
    verifyRenderLink(query, { secret, now: NOW });
  const changed = queryOf(link);
  changed.set("url", "https://example.org");
  const added = queryOf(link);
  added.append("fullPage", "true");
  const removed = queryOf(link);
  removed.delete("expires");
  const unsigned = queryOf(link);
  unsigned.delete("signature");
  const malformed = queryOf(link);
  malformed.set("signature", "NOT-HEX");
  const twice = queryOf(link);
  twice.append("signature", twice.get("signature")!);
  assert.deepEqual(await verify(changed), { valid: false, refusal: "bad_signature" });
  assert.deepEqual(await verify(added), { valid: false, refusal: "bad_signature" });
  assert.deepEqual(await verify(removed), { valid: false, refusal: "bad_signature" });
  assert.deepEqual(await verify(unsigned), { valid: false, refusal: "unsigned" });
  assert.deepEqual(await verify(malformed), { valid: false, refusal: "bad_signature" });
  assert.deepEqual(await verify(twice), { valid: false, refusal: "bad_signature" });
  assert.deepEqual(
    await verify(queryOf(link), "another-secret-of-at-least-32-chars"),
    { valid: false, refusal: "bad_signature" },
  );
});

Deno.test("a link works until the second its expires names", async () => {
  const link = await signRenderLink("http://localhost", { url: "https://example.com" }, {
    secret: SECRET,
    expiresAt: IN_AN_HOUR,
  });
  const at = (now: number) => verifyRenderLink(queryOf(link), { secret: SECRET, now });
  assert.equal((await at(IN_AN_HOUR.getTime() - 1)).valid, true);
  assert.deepEqual(await at(IN_AN_HOUR.getTime()), { valid: false, refusal: "expired" });
  // A signed query whose expires is no Unix time is refused as having none.
  const params: [string, string][] = [["url", "https://example.com"], ["expires", "soon"]];
  const query = new URLSearchParams(params);
  query.set("signature", await renderLinkSignature(SECRET, params));
  assert.deepEqual(await verifyRenderLink(query, { secret: SECRET, now: NOW }), {
    valid: false,
    refusal: "no_expiry",
  });
});
