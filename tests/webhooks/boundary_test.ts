/**
 * Webhooks and the network boundary (lib/webhooks/boundary.ts, deliver.ts), with private networks
 * not allowed and an injected resolver: loopback, private, metadata and mixed destinations, in
 * literals and behind names, are refused at submission and again at delivery, with no connection
 * attempted and nothing reaching the loopback receiver; a name rebound to loopback after
 * submission is refused at delivery and retried; hostile proxy variables move nothing; a public
 * name is delivered, by the address that was checked.
 */
import assert from "node:assert/strict";
import { SYSTEM_CLOCK } from "../../lib/clock.ts";
import type { Dialer } from "../../lib/egress/policy.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { checkWebhookTarget, createWebhookBoundary } from "../../lib/webhooks/boundary.ts";
import { deliverWebhook } from "../../lib/webhooks/deliver.ts";
import { InvalidWebhookTarget } from "../../lib/webhooks/types.ts";
import { hostileProxyEnv, setEnv, tcpTrap } from "../../testing/hostile_env.ts";
import { TEST_WEBHOOK_SECRET, webhookReceiver } from "../../testing/webhook_receiver.ts";

// What the fake public names resolve to; the dial seam sends it to the loopback receiver.
const PUBLIC_IP = "93.184.215.14";
const EVENT = { id: "msg_boundary", type: "capture.completed", payload: { ok: true } };

/** A boundary without private networks, whose resolver and dialer the test controls and sees. */
function closedBoundary(receiverPort: number, caCerts?: string[]) {
  const names: Record<string, string[]> = {
    "hooks.test": [PUBLIC_IP],
    "cdn.syndication.twimg.com": [PUBLIC_IP],
    "rebind.test": [PUBLIC_IP],
    "loopback.test": ["127.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "mixed.test": [PUBLIC_IP, "10.0.0.5"],
    "localhost": ["127.0.0.1", "::1"],
  };
  const dialed: string[] = [];
  const dial: Dialer = (address, port, signal) => {
    dialed.push(`${address}:${port}`);
    const toReceiver = address === PUBLIC_IP;
    return Deno.connect({
      hostname: toReceiver ? "127.0.0.1" : address,
      port: toReceiver ? receiverPort : port,
      signal,
    });
  };
  const boundary = createWebhookBoundary({
    allowPrivateNetwork: false,
    resolver: (host) => Promise.resolve(names[host] ?? []),
    dial,
    log: createMemoryLogger(),
  });
  const deps = { boundary, secret: TEST_WEBHOOK_SECRET, clock: SYSTEM_CLOCK, caCerts };
  return { names, dialed, deps, [Symbol.dispose]: () => boundary.proxy.close() };
}

/** Forbidden destinations: literals, names that resolve there, and a name with one bad address. */
const forbidden = (port: number) => [
  `http://127.0.0.1:${port}/ok`,
  `http://[::1]:${port}/ok`,
  "http://10.1.2.3/ok",
  "http://169.254.169.254/latest/meta-data/",
  `https://169.254.169.254/`,
  `http://loopback.test:${port}/ok`,
  "http://metadata.test/ok",
  `http://localhost:${port}/ok`,
  "http://mixed.test/ok",
];

const isLiteral = (url: string) => /\/\/(\d|\[)/.test(url);

Deno.test("forbidden receivers are refused at submission with invalid_url's reason, nothing contacted", async () => {
  await using receiver = webhookReceiver();
  using world = closedBoundary(receiver.port);
  for (const url of forbidden(receiver.port)) {
    await assert.rejects(
      () => checkWebhookTarget(url, world.deps),
      (error: unknown) => {
        assert.ok(error instanceof InvalidWebhookTarget, url);
        assert.equal(error.reason, "forbidden_address", url);
        // The message names neither the address nor its class.
        assert.doesNotMatch(error.message, /127\.0\.0\.1|10\.0\.0\.5|169\.254|loopback|private/);
        return true;
      },
    );
  }
  assert.deepEqual(world.dialed, []);
  assert.equal(receiver.received.length, 0);
});

Deno.test("other unusable webhook URLs are refused at submission; a public one is normalised", async () => {
  await using receiver = webhookReceiver();
  using world = closedBoundary(receiver.port);
  const refused: [string, string][] = [
    ["not a url", "malformed"],
    ["ftp://hooks.test/ok", "scheme"],
    ["file:///etc/passwd", "scheme"],
    ["http://user:pass@hooks.test/ok", "credentials"],
    ["http://token@hooks.test/ok", "credentials"],
    ["http://nowhere.test/ok", "unresolvable"],
    [`http://hooks.test/${"a".repeat(9000)}`, "malformed"],
  ];
  for (const [url, reason] of refused) {
    await assert.rejects(
      () => checkWebhookTarget(url, world.deps),
      (error: unknown) => error instanceof InvalidWebhookTarget && error.reason === reason,
      url,
    );
  }
  const accepted = await checkWebhookTarget("  HTTPS://Hooks.TEST/ok?x=1#frag ", world.deps);
  assert.equal(accepted.href, "https://hooks.test/ok?x=1");
  assert.deepEqual(world.dialed, []);
});

Deno.test("forbidden receivers are refused again at delivery: no connection, no hit", async () => {
  await using receiver = webhookReceiver();
  using world = closedBoundary(receiver.port);
  for (const url of forbidden(receiver.port)) {
    const outcome = await deliverWebhook(new URL(url), EVENT, world.deps);
    assert.equal(outcome.error, "refused", url);
    assert.equal(outcome.status, undefined, url);
    // A literal stays forbidden; a name may resolve elsewhere by the next attempt.
    assert.equal(outcome.kind, isLiteral(url) ? "failed" : "retry", url);
    assert.doesNotMatch(JSON.stringify(outcome), /127\.0\.0\.1|10\.0\.0\.5|169\.254/);
  }
  assert.deepEqual(world.dialed, []);
  assert.equal(receiver.received.length, 0);
});

Deno.test("a name rebound to loopback after submission is refused at delivery, then delivered once public again", async () => {
  await using receiver = webhookReceiver();
  using world = closedBoundary(receiver.port);
  const target = await checkWebhookTarget(`http://rebind.test:${receiver.port}/ok`, world.deps);
  world.names["rebind.test"] = ["127.0.0.1"];
  const refused = await deliverWebhook(target, EVENT, world.deps);
  assert.deepEqual([refused.kind, refused.error], ["retry", "refused"]);
  assert.deepEqual(world.dialed, []);
  assert.equal(receiver.received.length, 0);
  world.names["rebind.test"] = [PUBLIC_IP];
  const delivered = await deliverWebhook(target, EVENT, world.deps);
  assert.deepEqual([delivered.kind, delivered.status], ["delivered", 200]);
  assert.deepEqual(world.dialed, [`${PUBLIC_IP}:${receiver.port}`]);
  assert.equal(receiver.received.length, 1);
  assert.equal(receiver.received[0].verified, true);
});

Deno.test("hostile NO_PROXY and HTTP(S)_PROXY move nothing: refused stays refused, public goes by the checked address", async () => {
  await using receiver = webhookReceiver();
  using trap = tcpTrap();
  using world = closedBoundary(receiver.port);
  const restore = setEnv(hostileProxyEnv(`http://127.0.0.1:${trap.port}`));
  try {
    const refused = await deliverWebhook(receiver.url("/ok"), EVENT, world.deps);
    assert.deepEqual([refused.kind, refused.error], ["failed", "refused"]);
    const delivered = await deliverWebhook(new URL("http://hooks.test/ok"), EVENT, world.deps);
    assert.deepEqual([delivered.kind, delivered.status], ["delivered", 200]);
  } finally {
    restore();
  }
  assert.equal(trap.contacts, 0);
  assert.deepEqual(world.dialed, [`${PUBLIC_IP}:80`]);
  assert.deepEqual(receiver.received.map((delivery) => delivery.path), ["/ok"]);
  assert.equal(receiver.received[0].headers.host, "hooks.test");
});

Deno.test("https goes by CONNECT through the session, the certificate checked against the receiver's name", async () => {
  await using receiver = webhookReceiver({ tls: true });
  const ca = Deno.readTextFileSync(new URL("../../testing/tls/test_ca.pem", import.meta.url));
  using world = closedBoundary(receiver.port, [ca]);
  const outcome = await deliverWebhook(
    new URL("https://cdn.syndication.twimg.com/ok"),
    EVENT,
    world.deps,
  );
  assert.deepEqual([outcome.kind, outcome.status], ["delivered", 200]);
  assert.equal(receiver.received[0].verified, true);
  // The same receiver under a name its certificate does not carry gets nothing.
  const other = await deliverWebhook(new URL("https://hooks.test/ok"), EVENT, world.deps);
  assert.deepEqual([other.kind, other.error], ["retry", "connection_failed"]);
  assert.equal(receiver.received.length, 1);
  assert.deepEqual(world.dialed, [`${PUBLIC_IP}:443`, `${PUBLIC_IP}:443`]);
});

Deno.test("a name that does not resolve at delivery is retried as a DNS failure", async () => {
  await using receiver = webhookReceiver();
  using world = closedBoundary(receiver.port);
  const outcome = await deliverWebhook(new URL("http://gone.test/ok"), EVENT, world.deps);
  assert.deepEqual([outcome.kind, outcome.error], ["retry", "dns_failed"]);
  assert.deepEqual(world.dialed, []);
});
