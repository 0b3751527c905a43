import assert from "node:assert/strict";
import {
  forbiddenReason,
  isIpLiteral,
  parseIpv4,
  parseIpv6,
  resolveWithDns,
} from "../../lib/egress/address.ts";

const CASES: [string, string | null][] = [
  // Public addresses pass.
  ["93.184.215.14", null],
  ["8.8.8.8", null],
  ["2606:4700:4700::1111", null],
  ["2a00:1450:4001:82b::200e", null],
  // IPv4 classes.
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["169.254.1.1", "link-local"],
  ["169.254.169.254", "cloud-metadata"],
  ["169.254.170.2", "cloud-metadata"],
  ["100.100.100.200", "cloud-metadata"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.255", "cgnat"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.10", "documentation"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.99", "documentation"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  // Just outside the private ranges.
  ["172.32.0.1", null],
  ["100.128.0.1", null],
  ["11.0.0.1", null],
  // IPv6 classes.
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["fc00::1", "unique-local"],
  ["fd12:3456::1", "unique-local"],
  ["fd00:ec2::254", "cloud-metadata"],
  ["fe80::1", "link-local"],
  ["febf::1", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001:2::1", "benchmarking"],
  ["100::1", "reserved"],
  ["::127.0.0.1", "reserved"],
  ["4000::1", "reserved"],
  // Forms that embed an IPv4 address are judged by that address.
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:169.254.169.254", "cloud-metadata"],
  ["::ffff:8.8.8.8", null],
  ["64:ff9b::10.0.0.1", "private"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::8.8.8.8", null],
  ["64:ff9b:1::8.8.8.8", "nat64-local"],
  ["2002:7f00:1::1", "loopback"],
  ["2002:c0a8:101::1", "private"],
  ["2002:0808:0808::1", null],
  // Teredo: server 65.54.227.120 (public); client 127.0.0.1 obfuscated as 80ff:fffe.
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"],
  // Teredo: server 10.0.0.1 (private), client public.
  ["2001:0:a00:1::f7f7:f7f7", "private"],
  ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", null],
  // Anything unreadable is refused.
  ["localhost", "unparseable"],
  ["127.1", "unparseable"],
  ["2130706433", "unparseable"],
  ["0x7f000001", "unparseable"],
  ["127.000.000.001", "unparseable"],
  ["fe80::1%eth0", "unparseable"],
  ["", "unparseable"],
];

Deno.test("forbiddenReason classifies every special-purpose range and passes public ones", () => {
  for (const [address, expected] of CASES) {
    assert.equal(forbiddenReason(address), expected, address);
  }
});

Deno.test("IPv4 parsing accepts only canonical dotted quads", () => {
  assert.deepEqual(parseIpv4("1.2.3.4"), [1, 2, 3, 4]);
  for (const odd of ["1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.256", "0x1.2.3.4", " 1.2.3.4"]) {
    assert.equal(parseIpv4(odd), null, odd);
  }
});

Deno.test("IPv6 parsing expands :: and a trailing dotted quad, and rejects malformed text", () => {
  assert.deepEqual(parseIpv6("::1"), [...new Array(15).fill(0), 1]);
  assert.deepEqual(parseIpv6("1::"), [0, 1, ...new Array(14).fill(0)]);
  assert.deepEqual(parseIpv6("::ffff:1.2.3.4")?.slice(10), [255, 255, 1, 2, 3, 4]);
  for (const bad of ["1:2:3:4:5:6:7", "1::2::3", ":1", "1:2:3:4:5:6:7:8:9", "12345::", "g::1"]) {
    assert.equal(parseIpv6(bad), null, bad);
  }
  assert.equal(parseIpv6("1:2:3:4:5:6:7:8::"), null, ":: must stand for at least one group");
  assert.deepEqual(parseIpv6("1:2:3:4:5:6:7::")?.slice(14), [0, 0]);
});

Deno.test("isIpLiteral recognises bracketed IPv6 hosts and dotted quads only", () => {
  assert.equal(isIpLiteral("[::1]"), true);
  assert.equal(isIpLiteral("::1"), true);
  assert.equal(isIpLiteral("10.0.0.1"), true);
  assert.equal(isIpLiteral("example.com"), false);
  assert.equal(isIpLiteral("127.1"), false);
});

Deno.test("the default resolver treats localhost names as loopback without asking DNS", async () => {
  assert.deepEqual(await resolveWithDns("localhost"), ["127.0.0.1", "::1"]);
  assert.deepEqual(await resolveWithDns("app.localhost."), ["127.0.0.1", "::1"]);
  for (const address of await resolveWithDns("LOCALHOST")) {
    assert.equal(forbiddenReason(address), "loopback");
  }
});
