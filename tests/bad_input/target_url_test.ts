/**
 * Property tests of the capture URL validator: for any input it returns a normalised http(s)
 * URL that re-parses to itself, or throws ApiError 400 invalid_url; nothing else. Literal
 * addresses the classifier forbids never get through.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { forbiddenReason } from "../../lib/egress/address.ts";
import { parseTargetUrl } from "../../lib/capture/mod.ts";
import { ApiError } from "../../lib/errors.ts";
import {
  FORBIDDEN_V4,
  FORBIDDEN_V6,
  inForbiddenV4,
  numberToV4,
  v4In,
  v4ToNumber,
  v6In,
} from "../../testing/ssrf_corpus.ts";

const PUBLIC = { allowPrivateNetwork: false };
const PRIVATE_OK = { allowPrivateNetwork: true };
const RUNS = { numRuns: 400 };

type Outcome = { ok: true; url: string } | { ok: false; message: string };

/** Runs the validator and checks the contract: a canonical, idempotent URL or invalid_url. */
function outcome(input: string, options = PUBLIC): Outcome {
  let url: string;
  try {
    url = parseTargetUrl(input, options);
  } catch (error) {
    assert.ok(error instanceof ApiError, `${JSON.stringify(input)} threw ${error}`);
    assert.equal(error.status, 400, JSON.stringify(input));
    assert.equal(error.code, "invalid_url", JSON.stringify(input));
    assert.ok(error.hint.length > 0);
    return { ok: false, message: error.message };
  }
  assert.equal(typeof url, "string");
  const parsed = new URL(url);
  assert.equal(parsed.href, url, `${JSON.stringify(input)} -> ${url} is canonical`);
  assert.match(parsed.protocol, /^https?:$/);
  assert.equal(parsed.username + parsed.password + parsed.hash, "");
  assert.equal(parseTargetUrl(url, options), url, `${JSON.stringify(input)}: idempotent`);
  if (!options.allowPrivateNetwork) assertNoForbiddenLiteral(parsed.hostname, input);
  return { ok: true, url };
}

function assertNoForbiddenLiteral(hostname: string, input: string) {
  const ip = hostname.replace(/^\[|\]$/g, "");
  if (/^\d+\.\d+\.\d+\.\d+$/.test(ip) || ip.includes(":")) {
    assert.equal(forbiddenReason(ip), null, `${JSON.stringify(input)} reaches ${hostname}`);
  }
  assert.doesNotMatch(hostname, /(^|\.)localhost\.?$/);
}

const scheme = fc.constantFrom("http://", "https://", "HTTP://", "hTtPs://");
const urlish = fc.string({
  unit: fc.constantFrom(..."aZ09.-:[]@%/\\?#_~!$&'()*+,;=xf \t\n。．１", "%2e", "%00", "::"),
  maxLength: 40,
});

Deno.test("arbitrary strings give a canonical idempotent URL or invalid_url", () => {
  for (const options of [PUBLIC, PRIVATE_OK]) {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 120 }), (s) => {
        outcome(s, options);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(fc.tuple(scheme, urlish), ([a, b]) => void outcome(a + b, options)),
      RUNS,
    );
  }
});

Deno.test("generated web URLs with ports, userinfo and IPs obey the same contract", () => {
  const authority = {
    withIPv4: true,
    withIPv6: true,
    withIPv4Extended: true,
    withUserInfo: true,
    withPort: true,
  };
  const urls = fc.webUrl({
    authoritySettings: authority,
    withQueryParameters: true,
    withFragments: true,
  });
  for (const options of [PUBLIC, PRIVATE_OK]) {
    fc.assert(fc.property(urls, (url) => void outcome(url, options)), RUNS);
  }
  // Plain name URLs without userinfo are accepted and keep their path and query.
  const plain = fc.webUrl({ validSchemes: ["http", "https"], withQueryParameters: true });
  fc.assert(
    fc.property(plain, (url) => {
      const result = outcome(url);
      assert.ok(result.ok, `${url} is accepted`);
      assert.equal(result.url, new URL(url).href);
    }),
    RUNS,
  );
});

Deno.test("mixed-case hosts, ports and unicode hosts normalise to one form", () => {
  const port = fc.integer({ min: 0, max: 70_000 });
  fc.assert(
    fc.property(fc.domain(), port, fc.boolean(), (domain, p, secure) => {
      const mixed = [...domain].map((ch, i) => (i % 2 ? ch.toUpperCase() : ch)).join("");
      const base = `${secure ? "https" : "http"}://${mixed}:${p}/Path?Q=1#frag`;
      const result = outcome(base);
      if (p > 65535) return assert.equal(result.ok, false, base);
      assert.ok(result.ok, base);
      const defaultPort = (secure && p === 443) || (!secure && p === 80);
      const host = domain.toLowerCase() + (defaultPort ? "" : `:${p}`);
      assert.equal(result.url, `${secure ? "https" : "http"}://${host}/Path?Q=1`);
    }),
    RUNS,
  );
  const label = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 });
  fc.assert(
    fc.property(label, fc.constantFrom(".example", ".中国", ".рф", "。example"), (name, tld) => {
      const result = outcome(`https://${name}${tld}/ünïcode?q=é`);
      // IDN hosts come back in punycode: pure ASCII.
      if (result.ok) assert.match(new URL(result.url).host, /^[\x21-\x7e]+$/);
    }),
    RUNS,
  );
});

/** Spellings of one IPv4 address that WHATWG (and Chromium) read as that address. */
function oddSpellings(ip: string): string[] {
  const octets = ip.split(".").map(Number);
  const n = v4ToNumber(ip);
  const fullwidth = (s: string) => s.replace(/\d/g, (d) => String.fromCharCode(0xff10 + +d));
  return [
    String(n),
    `0x${n.toString(16)}`,
    `0${n.toString(8)}`,
    octets.map((o) => `0x${o.toString(16)}`).join("."),
    octets.map((o) => `0${o.toString(8)}`).join("."),
    octets.map((o) => String(o).padStart(3, "0")).join("."),
    `${octets[0]}.${n % 2 ** 24}`,
    `${octets[0]}.${octets[1]}.${n % 65536}`,
    `${ip}.`,
    ip.replaceAll(".", "。"),
    ip.replaceAll(".", "%2e"),
    fullwidth(ip),
    [...ip].map((ch) => /\d/.test(ch) ? `%3${ch}` : ch).join(""),
  ].filter((spelling) => spelling !== ip);
}

const anyV4 = fc.integer({ min: 0, max: 2 ** 32 - 1 }).map(numberToV4);

Deno.test("odd IPv4 notations are refused even when private networks are allowed", () => {
  fc.assert(
    fc.property(anyV4, fc.constantFrom(...oddSpellings("1.2.3.4").keys()), (ip, which) => {
      const spelling = oddSpellings(ip)[which];
      if (spelling === undefined) return;
      const result = outcome(`http://${spelling}/`, PRIVATE_OK);
      assert.equal(result.ok, false, `http://${spelling}/ (${ip})`);
    }),
    RUNS,
  );
});

Deno.test("every literal address the classifier forbids is refused as a capture target", () => {
  const forbidden = fc.oneof(
    ...FORBIDDEN_V4.map((r) => v4In(r)),
    ...FORBIDDEN_V6.map((r) => v6In(r).map((ip) => `[${ip}]`)),
    // Embedded IPv4 (NAT64, 6to4) of forbidden space.
    fc.oneof(...FORBIDDEN_V4.map((r) => v4In(r))).chain((ip) => {
      const [hi, lo] = [v4ToNumber(ip) >>> 16, v4ToNumber(ip) & 0xffff].map((x) => x.toString(16));
      return fc.constantFrom(`[64:ff9b::${hi}:${lo}]`, `[2002:${hi}:${lo}::1]`);
    }),
  );
  fc.assert(
    fc.property(forbidden, fc.constantFrom("http", "https"), (host, s) => {
      const result = outcome(`${s}://${host}/`);
      assert.equal(result.ok, false, `${s}://${host}/ must be refused`);
    }),
    { numRuns: 1000 },
  );
  // With private networks allowed, canonical literals pass (the egress proxy allows them too).
  fc.assert(fc.property(anyV4, (ip) => assert.ok(outcome(`http://${ip}/`, PRIVATE_OK).ok)), RUNS);
});

Deno.test("public literal addresses are accepted", () => {
  const publicV4 = anyV4.filter((ip) => !inForbiddenV4(ip));
  fc.assert(
    fc.property(publicV4, (ip) => {
      assert.deepEqual(outcome(`http://${ip}:8080/x`), { ok: true, url: `http://${ip}:8080/x` });
    }),
    RUNS,
  );
  fc.assert(
    fc.property(v6In(["2400::", 6, "global unicast"]), (ip) => {
      const result = outcome(`https://[${ip}]/`);
      assert.ok(result.ok, ip);
    }),
    RUNS,
  );
});
