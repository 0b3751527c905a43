/**
 * Property tests of the private-address classifier and the egress decision: every address in a
 * forbidden range, in every IPv6 embedding, is refused; public samples pass; and whatever a
 * resolver answers, only judged public addresses are ever dialled.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { forbiddenReason, isIpLiteral } from "../../lib/egress/address.ts";
import { checkDestination, dialChecked, type EgressPolicy } from "../../lib/egress/policy.ts";
import { createEgressProxy } from "../../lib/egress/proxy.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import {
  FORBIDDEN_V4,
  FORBIDDEN_V6,
  inForbiddenV4,
  numberToV4,
  RESOLVED_SSRF,
  v4Halves,
  v4In,
  v6Groups,
  v6In,
} from "../../testing/ssrf_corpus.ts";

const RUNS = { numRuns: 300 };

const anyForbiddenV4 = fc.oneof(...FORBIDDEN_V4.map(v4In));
const anyV4 = fc.integer({ min: 0, max: 2 ** 32 - 1 }).map(numberToV4);
const publicV4 = anyV4.filter((ip) => !inForbiddenV4(ip));
const hex = (n: number) => n.toString(16);
const group = fc.integer({ min: 0, max: 0xffff }).map(hex);

/** The IPv6 forms that carry an IPv4 address, in several spellings each. */
function embeddings(v4: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(v4, group, group, group, publicV4).chain(([ip, r1, r2, r3, server]) => {
    const [hi, lo] = v4Halves(ip).map(hex);
    const [shi, slo] = v4Halves(server).map(hex);
    const [chi, clo] = v4Halves(ip).map((h) => hex(h ^ 0xffff));
    return fc.constantFrom(
      `::ffff:${ip}`,
      `::ffff:${hi}:${lo}`,
      `0:0:0:0:0:FFFF:${hi}:${lo}`,
      `64:ff9b::${hi}:${lo}`,
      `64:ff9b::${ip}`,
      `0064:ff9b:0000:0000:0000:0000:${hi}:${lo}`,
      `2002:${hi}:${lo}::${r1}`,
      `2002:${hi}:${lo}:${r1}:${r2}:${r3}:1:2`,
      `2001:0:${hi}:${lo}:${r1}:${r2}:${r3}:1`, // Teredo server
      `2001::${shi}:${slo}:${r1}:${r2}:${chi}:${clo}`, // Teredo client (obfuscated)
    );
  });
}

Deno.test("every IPv4 address inside a forbidden range is classified forbidden", () => {
  for (const range of FORBIDDEN_V4) {
    fc.assert(
      fc.property(v4In(range), (ip) => {
        assert.notEqual(forbiddenReason(ip), null, `${ip} (${range[2]})`);
      }),
      { numRuns: 100 },
    );
  }
});

Deno.test("every IPv6 address inside a forbidden range is classified forbidden", () => {
  for (const range of FORBIDDEN_V6) {
    fc.assert(
      fc.property(v6In(range), (ip) => {
        // An embedded IPv4 may decide instead of the range (::ffff:...): it must still refuse.
        if (/^(0:){5}ffff:/.test(ip) && !inForbiddenV4(ipOfMapped(ip))) return;
        assert.notEqual(forbiddenReason(ip), null, `${ip} (${range[2]})`);
      }),
      { numRuns: 100 },
    );
  }
});

function ipOfMapped(full: string): string {
  const groups = v6Groups(full);
  return numberToV4(groups[6] * 65536 + groups[7]);
}

Deno.test("IPv4-mapped, NAT64, 6to4 and Teredo embeddings of forbidden IPv4 are forbidden", () => {
  fc.assert(
    fc.property(embeddings(anyForbiddenV4), (ip) => {
      assert.notEqual(forbiddenReason(ip), null, ip);
      assert.ok(isIpLiteral(ip) && isIpLiteral(`[${ip}]`), ip);
    }),
    { numRuns: 500 },
  );
});

Deno.test("public IPv4 samples, their embeddings and global IPv6 samples are allowed", () => {
  fc.assert(fc.property(publicV4, (ip) => assert.equal(forbiddenReason(ip), null, ip)), RUNS);
  // The Teredo client in `embeddings` is obfuscated from a public address, so all pass.
  fc.assert(
    fc.property(embeddings(publicV4).filter((ip) => !ip.startsWith("2001:0:")), (ip) => {
      assert.equal(forbiddenReason(ip), null, ip);
    }),
    RUNS,
  );
  // 2400::/6 is allocated global unicast with no special-purpose block inside.
  fc.assert(
    fc.property(v6In(["2400::", 6]), (ip) => assert.equal(forbiddenReason(ip), null, ip)),
    RUNS,
  );
});

Deno.test("any string is classified without throwing, and non-addresses are refused", () => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.ipV4Extended(), fc.domain(), fc.ipV6()), (text) => {
      const reason = forbiddenReason(text);
      if (!isIpLiteral(text)) assert.equal(reason, "unparseable", text);
    }),
    { numRuns: 500 },
  );
  // Odd IPv4 notations are never read as an address (default deny), even when public.
  for (const odd of ["127.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433", "8.8.8.08", "1.2.3.4."]) {
    assert.equal(forbiddenReason(odd), "unparseable", odd);
  }
});

/** A policy whose dialler only records; it must never be reached for a forbidden answer. */
function recordingPolicy(answers: string[] | Error) {
  const dialed: string[] = [];
  const policy: EgressPolicy = {
    resolver: () => answers instanceof Error ? Promise.reject(answers) : Promise.resolve(answers),
    allowPrivateNetwork: false,
    connectTimeoutMs: 1_000,
    dial: (address) => {
      dialed.push(address);
      return Promise.reject(new Deno.errors.ConnectionRefused("test dialler"));
    },
  };
  return { policy, dialed };
}

Deno.test("whatever the resolver answers, only public addresses are ever dialled", async () => {
  const answer = fc.oneof(anyForbiddenV4, publicV4, embeddings(anyV4), fc.ipV6(), fc.string());
  await fc.assert(
    fc.asyncProperty(fc.domain(), fc.array(answer, { maxLength: 4 }), async (host, answers) => {
      const { policy, dialed } = recordingPolicy(answers);
      const checked = await checkDestination(host, 443, policy);
      if (checked.ok) await dialChecked(host, 443, checked.addresses, policy);
      for (const address of dialed) assert.equal(forbiddenReason(address), null, address);
      const anyForbidden = answers.some((a) => forbiddenReason(a) !== null);
      assert.equal(checked.ok, answers.length > 0 && !anyForbidden, JSON.stringify(answers));
    }),
    RUNS,
  );
});

Deno.test("names that resolve to metadata, loopback or private space are refused", async () => {
  for (const [host, addresses, trick] of RESOLVED_SSRF) {
    const { policy, dialed } = recordingPolicy(addresses);
    const checked = await checkDestination(host, 80, policy);
    assert.equal(checked.ok, false, trick);
    if (!checked.ok) assert.equal(checked.refusal.kind, "forbidden_address", trick);
    assert.deepEqual(dialed, [], trick);
  }
  const failing = recordingPolicy(new Error("SERVFAIL"));
  const failed = await checkDestination("flaky.example", 80, failing.policy);
  assert.equal(failed.ok ? "ok" : failed.refusal.kind, "dns_failed");
  const empty = await checkDestination("nx.example", 80, recordingPolicy([]).policy);
  assert.equal(empty.ok ? "ok" : empty.refusal.kind, "unresolvable");
});

Deno.test("the egress proxy refuses the resolved-name corpus with 403, CONNECT and GET", async () => {
  for (const [host, addresses, trick] of RESOLVED_SSRF) {
    const { policy, dialed } = recordingPolicy(addresses);
    const proxy = createEgressProxy(policy, createMemoryLogger());
    const session = proxy.openSession();
    try {
      const port = Number(new URL(session.url).port);
      for (
        const head of [
          `CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`,
          `GET http://${host}/latest/meta-data/ HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
        ]
      ) {
        const answer = await exchange(port, head);
        assert.match(answer, /^HTTP\/1\.1 403 /, `${trick}: ${head.split("\r\n")[0]}`);
      }
      assert.deepEqual(dialed, [], trick);
      assert.ok(session.refusals.every((r) => r.kind === "forbidden_address"), trick);
    } finally {
      proxy.close();
    }
  }
});

/** Writes a request head to the proxy and reads until it closes the connection. */
async function exchange(port: number, head: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(head));
    let text = "";
    const buffer = new Uint8Array(4096);
    for (
      let n = await conn.read(buffer);
      n !== null;
      n = await conn.read(buffer).catch(() => null)
    ) {
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    return text;
  } finally {
    conn.close();
  }
}
