import assert from "node:assert/strict";
import { parseTargetUrl } from "../../../lib/capture/mod.ts";
import { ApiError } from "../../../lib/errors.ts";

const PUBLIC = { allowPrivateNetwork: false };
const PRIVATE_OK = { allowPrivateNetwork: true };

function refused(input: string, options = PUBLIC, message?: RegExp) {
  assert.throws(() => parseTargetUrl(input, options), (error: unknown) => {
    assert.ok(error instanceof ApiError, `${input}: ApiError`);
    assert.equal(error.status, 400, input);
    assert.equal(error.code, "invalid_url", input);
    assert.ok(error.hint.length > 0, `${input}: has a hint`);
    if (message) assert.match(error.message, message, input);
    return true;
  }, `${input} is refused`);
}

Deno.test("normalisation lowercases scheme and host, drops default ports and the fragment", () => {
  const cases: Array<[string, string]> = [
    ["HTTP://Example.COM:80/Path?Q=A#frag", "http://example.com/Path?Q=A"],
    ["https://EXAMPLE.com:443", "https://example.com/"],
    ["https://example.com:8443/a/b?x=1&y=2", "https://example.com:8443/a/b?x=1&y=2"],
    ["http://example.com:443/", "http://example.com:443/"],
    ["  https://example.com/  ", "https://example.com/"],
    ["https://bücher.example/straße", "https://xn--bcher-kva.example/stra%C3%9Fe"],
    ["https://example.com/a b", "https://example.com/a%20b"],
    ["https://[2606:4700:4700::1111]/", "https://[2606:4700:4700::1111]/"],
    ["http://93.184.215.14/", "http://93.184.215.14/"],
  ];
  for (const [input, expected] of cases) assert.equal(parseTargetUrl(input, PUBLIC), expected);
});

Deno.test("schemes other than http and https are refused", () => {
  for (
    const input of [
      "file:///etc/passwd",
      "data:text/html,<h1>hi</h1>",
      "javascript:alert(1)",
      "chrome://settings",
      "view-source:https://example.com",
      "about:blank",
      "ftp://example.com/",
      "ws://example.com/",
      "blob:https://example.com/uuid",
    ]
  ) refused(input, PRIVATE_OK, /scheme cannot be captured/);
});

Deno.test("relative, scheme-only, malformed and oversized URLs are refused", () => {
  for (
    const input of [
      "",
      "   ",
      "example.com",
      "//example.com/",
      "http:example.com",
      "http:\\\\example.com",
      "https://",
      "https://exa mple.com/",
      "https://example.com/\u0000",
      "https://example.com:99999/",
      `https://example.com/${"a".repeat(9000)}`,
    ]
  ) refused(input, PRIVATE_OK);
});

Deno.test("userinfo in the URL is refused", () => {
  for (
    const input of [
      "https://user:pw@example.com/",
      "https://user@example.com",
      "http://@example.com/",
    ]
  ) {
    refused(input, PRIVATE_OK, /user name or password/);
  }
});

Deno.test("odd IPv4 spellings are refused even when private networks are allowed", () => {
  for (
    const input of [
      "http://2130706433/",
      "http://0x7f000001/",
      "http://0x7F.0.0.1/",
      "http://127.1/",
      "http://127.0.1/",
      "http://0177.0.0.1/",
      "http://017700000001/",
      "http://127.0.0.1./",
      "http://%31%32%37.0.0.1/",
      "http://３.３.３.３/",
      "http://134744072/", // 8.8.8.8: public, but still not a way to write an address
    ]
  ) refused(input, PRIVATE_OK, /unusual notation/);
});

Deno.test("IPv4 addresses written as IPv6 are refused", () => {
  for (
    const input of [
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:7f00:1]/",
      "http://[0:0:0:0:0:ffff:8.8.8.8]/",
      "http://[::127.0.0.1]/",
    ]
  ) refused(input, PRIVATE_OK, /IPv4 address written as IPv6/);
});

Deno.test("literal non-public addresses are refused unless ALLOW_PRIVATE_NETWORK", () => {
  const literals = [
    "http://127.0.0.1:8000/",
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[::1]/",
    "http://[::]/",
    "http://[fe80::1]/",
    "http://[fd00:ec2::254]/",
    "http://[ff02::1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:a00:1::1]/",
    "http://localhost:3000/",
    "http://app.localhost/",
  ];
  // The same words as a name that resolves there or does not resolve at all (no oracle).
  for (const input of literals) {
    refused(input, PUBLIC, /^The URL's host is not publicly reachable\.$/);
  }
  assert.equal(parseTargetUrl("http://127.0.0.1:8000/x", PRIVATE_OK), "http://127.0.0.1:8000/x");
  assert.equal(parseTargetUrl("http://[::1]:8000/", PRIVATE_OK), "http://[::1]:8000/");
  assert.equal(parseTargetUrl("http://localhost:3000/", PRIVATE_OK), "http://localhost:3000/");
});

Deno.test("public literal addresses and ordinary names pass", () => {
  assert.equal(parseTargetUrl("http://8.8.8.8/", PUBLIC), "http://8.8.8.8/");
  assert.equal(parseTargetUrl("http://[2001:4860::8888]/", PUBLIC), "http://[2001:4860::8888]/");
  assert.equal(parseTargetUrl("https://sub.example.co.uk/", PUBLIC), "https://sub.example.co.uk/");
  // Names are judged by what they resolve to, at the egress proxy, not here.
  assert.equal(parseTargetUrl("http://internal.corp/", PUBLIC), "http://internal.corp/");
});
