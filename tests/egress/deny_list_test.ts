import assert from "node:assert/strict";
import { forbiddenReason } from "../../lib/egress/address.ts";
import { deniedByCidrs, parseCidr, parseCidrList } from "../../lib/egress/cidr.ts";
import { checkDestination, type EgressPolicy } from "../../lib/egress/policy.ts";

Deno.test("well-known cloud-internal addresses in public ranges are refused", () => {
  for (
    const [address, reason] of [
      ["168.63.129.16", "cloud-internal"], // Azure wire server
      ["199.36.153.4", "cloud-internal"], // restricted.googleapis.com
      ["199.36.153.7", "cloud-internal"],
      ["199.36.153.8", "cloud-internal"], // private.googleapis.com
      ["199.36.153.11", "cloud-internal"],
      ["fd00:ec2::253", "cloud-internal"], // AWS DNS over IPv6
      ["fd00:ec2::123", "cloud-internal"], // AWS time over IPv6
      ["169.254.169.254", "cloud-metadata"],
      ["::ffff:168.63.129.16", "cloud-internal"],
    ]
  ) assert.equal(forbiddenReason(address), reason, address);
  // The neighbours stay public.
  for (const address of ["168.63.129.15", "168.63.129.17", "199.36.153.3", "199.36.153.12"]) {
    assert.equal(forbiddenReason(address), null, address);
  }
});

Deno.test("CIDR parsing: prefixes, bare addresses, and what is refused", () => {
  assert.deepEqual(parseCidr("10.1.0.0/16"), {
    text: "10.1.0.0/16",
    bytes: [10, 1, 0, 0],
    bits: 16,
  });
  assert.equal(parseCidr("2a01:4f8::/32")?.bits, 32);
  assert.equal(parseCidr("8.8.8.8")?.text, "8.8.8.8/32");
  assert.equal(parseCidr("::1")?.text, "::1/128");
  for (
    const bad of ["", "10.0.0.0/33", "::/129", "10.0.0.0/08", "10.0.0/8", "host/8", "1.2.3.4/"]
  ) {
    assert.equal(parseCidr(bad), null, bad);
  }
  assert.deepEqual(parseCidrList("10.0.0.0/8, nope, 1.2.3.4/40"), {
    invalid: ["nope", "1.2.3.4/40"],
  });
  assert.deepEqual(parseCidrList(" , 10.0.0.0/8,"), { cidrs: [parseCidr("10.0.0.0/8")] });
});

Deno.test("operator CIDRs match IPv4, IPv6 and IPv4 carried in IPv6", () => {
  const parsed = parseCidrList("203.0.114.0/24,2a01:4f8:1::/48");
  assert.ok("cidrs" in parsed);
  const { cidrs } = parsed;
  assert.equal(deniedByCidrs("203.0.114.9", cidrs), true);
  assert.equal(deniedByCidrs("203.0.115.9", cidrs), false);
  assert.equal(deniedByCidrs("::ffff:203.0.114.9", cidrs), true);
  assert.equal(deniedByCidrs("2002:cb00:7209::1", cidrs), true, "6to4 of 203.0.114.9");
  assert.equal(deniedByCidrs("2a01:4f8:1:2::5", cidrs), true);
  assert.equal(deniedByCidrs("2a01:4f8:2::5", cidrs), false);
  assert.equal(deniedByCidrs("not an address", cidrs), false);
  assert.equal(deniedByCidrs("203.0.114.9", []), false);
});

Deno.test("the egress check refuses an operator range, even with ALLOW_PRIVATE_NETWORK", async () => {
  const parsed = parseCidrList("203.0.114.0/24");
  assert.ok("cidrs" in parsed);
  const policy = (allowPrivateNetwork: boolean): EgressPolicy => ({
    resolver: (host) =>
      Promise.resolve(host === "ops.example" ? ["93.184.215.14", "203.0.114.20"] : ["10.0.0.1"]),
    allowPrivateNetwork,
    denyCidrs: parsed.cidrs,
    connectTimeoutMs: 1_000,
  });
  for (const allow of [false, true]) {
    const checked = await checkDestination("ops.example", 443, policy(allow));
    assert.deepEqual(checked, {
      ok: false,
      refusal: {
        host: "ops.example",
        port: 443,
        kind: "forbidden_address",
        detail: "operator-denied",
      },
    });
  }
  assert.equal((await checkDestination("203.0.114.1", 80, policy(false))).ok, false);
  // Private addresses follow ALLOW_PRIVATE_NETWORK as before.
  assert.equal((await checkDestination("lan.example", 80, policy(true))).ok, true);
  assert.equal((await checkDestination("lan.example", 80, policy(false))).ok, false);
});
