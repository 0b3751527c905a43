import assert from "node:assert/strict";
import { canonicalIp, rateLimitBucket, resolveClientIp } from "../../lib/http/client_ip.ts";

Deno.test("with no trusted hops the peer address is the client", () => {
  assert.equal(resolveClientIp("203.0.113.9", "198.51.100.1", 0), "203.0.113.9");
});

Deno.test("with N trusted hops the N-th X-Forwarded-For entry from the right is the client", () => {
  const xff = "10.9.9.9, 198.51.100.7, 192.0.2.1";
  assert.equal(resolveClientIp("127.0.0.1", xff, 1), "192.0.2.1");
  assert.equal(resolveClientIp("127.0.0.1", xff, 2), "198.51.100.7");
  assert.equal(resolveClientIp("127.0.0.1", xff, 3), "10.9.9.9");
});

Deno.test("too few or unparseable entries fall back to the peer", () => {
  assert.equal(resolveClientIp("127.0.0.1", "192.0.2.1", 2), "127.0.0.1");
  assert.equal(resolveClientIp("127.0.0.1", "not-an-ip", 1), "127.0.0.1");
  assert.equal(resolveClientIp("127.0.0.1", undefined, 1), "127.0.0.1");
});

Deno.test("ports and brackets are stripped from forwarded entries", () => {
  assert.equal(resolveClientIp("127.0.0.1", "192.0.2.1:5555", 1), "192.0.2.1");
  assert.equal(resolveClientIp("127.0.0.1", "[2001:db8::1]:443", 1), "2001:db8::1");
});

Deno.test("IPv4-mapped IPv6 becomes plain IPv4", () => {
  assert.equal(canonicalIp("::ffff:192.0.2.44"), "192.0.2.44");
  assert.equal(resolveClientIp("::FFFF:192.0.2.44", undefined, 0), "192.0.2.44");
});

Deno.test("IPv6 clients share a bucket per /64, IPv4 clients are bucketed alone", () => {
  assert.equal(rateLimitBucket("2001:db8:1:2:aaaa::1"), "2001:0db8:0001:0002::/64");
  assert.equal(rateLimitBucket("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:0db8:0001:0002::/64");
  assert.notEqual(rateLimitBucket("2001:db8:1:3::1"), rateLimitBucket("2001:db8:1:2::1"));
  assert.equal(rateLimitBucket("64:ff9b::192.0.2.1"), "0064:ff9b:0000:0000::/64");
  assert.equal(rateLimitBucket("192.0.2.1"), "192.0.2.1");
});
