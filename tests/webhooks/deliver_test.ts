/**
 * Webhook delivery (lib/webhooks/deliver.ts) to real receivers on loopback, through the webhooks'
 * egress proxy with ALLOW_PRIVATE_NETWORK on (the receivers are on 127.0.0.1): the signed POST
 * the reference library verifies, how each answer is classed, a redirect never followed, a
 * silent receiver cut at the bound and a long answer read no further than its excerpt.
 */
import assert from "node:assert/strict";
import { SYSTEM_CLOCK } from "../../lib/clock.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { createWebhookBoundary } from "../../lib/webhooks/boundary.ts";
import {
  deliverWebhook,
  type DeliveryDeps,
  RESPONSE_EXCERPT_BYTES,
  WEBHOOK_USER_AGENT,
} from "../../lib/webhooks/deliver.ts";
import {
  silentReceiver,
  TEST_WEBHOOK_SECRET,
  webhookReceiver,
} from "../../testing/webhook_receiver.ts";

const EVENT = {
  id: "msg_2f6QYwvTQpPa3rHcKq1GmS",
  type: "capture.completed",
  payload: { captureId: "cap_1", url: "https://example.com/", bytes: 48213 },
};

/** Delivery deps over a loopback-permitting boundary; `timeoutMs` shortens the bound. */
function loopbackDeps(timeoutMs?: number): DeliveryDeps & Disposable {
  const boundary = createWebhookBoundary({
    allowPrivateNetwork: true,
    log: createMemoryLogger(),
  });
  return {
    boundary,
    secret: TEST_WEBHOOK_SECRET,
    clock: SYSTEM_CLOCK,
    timeoutMs,
    [Symbol.dispose]: () => boundary.proxy.close(),
  };
}

Deno.test("a delivery is a signed JSON POST the reference library verifies; 2xx is delivered", async () => {
  await using receiver = webhookReceiver();
  using deps = loopbackDeps();
  const before = Date.now();
  const outcome = await deliverWebhook(receiver.url("/ok"), EVENT, deps);
  assert.equal(outcome.kind, "delivered");
  assert.equal(outcome.status, 200);
  assert.equal(outcome.responseExcerpt, "thanks");
  assert.equal(outcome.responseCut, false);
  assert.ok(outcome.elapsedMs >= 0 && outcome.elapsedMs < 10_000);
  assert.equal(receiver.received.length, 1);
  const [delivery] = receiver.received;
  assert.equal(delivery.method, "POST");
  assert.equal(delivery.verified, true);
  assert.equal(delivery.headers["content-type"], "application/json");
  assert.equal(delivery.headers["user-agent"], WEBHOOK_USER_AGENT);
  assert.equal(delivery.headers["webhook-id"], EVENT.id);
  assert.match(delivery.headers["webhook-signature"], /^v1,[A-Za-z0-9+/]{43}=$/);
  const seconds = Number(delivery.headers["webhook-timestamp"]);
  assert.ok(Math.abs(seconds - before / 1000) < 5);
  const body = JSON.parse(delivery.body);
  assert.deepEqual(Object.keys(body), ["type", "timestamp", "data"]);
  assert.equal(body.type, EVENT.type);
  assert.deepEqual(body.data, EVENT.payload);
  // The body's ISO time is the header's instant, to the second.
  assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(Math.floor(Date.parse(body.timestamp) / 1000), seconds);
  // Nothing of the secret travels, and nothing of it is in the outcome.
  const secretKey = TEST_WEBHOOK_SECRET.slice("whsec_".length);
  assert.equal(JSON.stringify(delivery).includes(secretKey), false);
  assert.equal(JSON.stringify(outcome).includes(secretKey), false);
  assert.equal(JSON.stringify(outcome).includes(delivery.headers["webhook-signature"]), false);
});

Deno.test("answers are classed: 5xx, 408 and 429 are retried; 410 and other 4xx are not", async () => {
  await using receiver = webhookReceiver();
  using deps = loopbackDeps();
  const expected: [number, string][] = [
    [201, "delivered"],
    [204, "delivered"],
    [500, "retry"],
    [503, "retry"],
    [408, "retry"],
    [429, "retry"],
    [400, "failed"],
    [404, "failed"],
    [410, "failed"],
  ];
  for (const [status, kind] of expected) {
    const outcome = await deliverWebhook(receiver.url(`/status/${status}`), EVENT, deps);
    assert.equal(outcome.status, status);
    assert.equal(outcome.kind, kind, `status ${status}`);
    assert.equal(outcome.error, undefined);
  }
  const failed = await deliverWebhook(receiver.url("/status/500"), EVENT, deps);
  assert.equal(failed.responseExcerpt, "answered 500");
  assert.ok(receiver.received.every((delivery) => delivery.verified));
});

Deno.test("a 302 is a permanent failure and its Location is never requested", async () => {
  await using receiver = webhookReceiver();
  using deps = loopbackDeps();
  const outcome = await deliverWebhook(receiver.url("/redirect"), EVENT, deps);
  assert.equal(outcome.kind, "failed");
  assert.equal(outcome.status, 302);
  assert.deepEqual(receiver.received.map((delivery) => delivery.path), ["/redirect"]);
});

Deno.test("a receiver that never answers is cut at the bound and retried", async () => {
  await using receiver = silentReceiver();
  using deps = loopbackDeps(300);
  const started = performance.now();
  const outcome = await deliverWebhook(
    new URL(`http://127.0.0.1:${receiver.port}/hook`),
    EVENT,
    deps,
  );
  const elapsed = performance.now() - started;
  assert.equal(outcome.kind, "retry");
  assert.equal(outcome.error, "timeout");
  assert.equal(outcome.status, undefined);
  assert.equal(receiver.connections, 1);
  // The bound, plus the scheduling of one timer: far below the 10 s default.
  assert.ok(elapsed >= 290 && elapsed < 2_000, `took ${elapsed} ms`);
  assert.ok(outcome.elapsedMs >= 290 && outcome.elapsedMs < 2_000);
});

Deno.test("a long answer is read no further than the excerpt", async () => {
  await using receiver = webhookReceiver({ longBytes: 1024 * 1024 });
  using deps = loopbackDeps();
  for (const path of ["/long", "/long-chunked"]) {
    const outcome = await deliverWebhook(receiver.url(path), EVENT, deps);
    assert.equal(outcome.kind, "delivered", path);
    assert.equal(outcome.responseCut, true, path);
    assert.equal(outcome.responseExcerpt, "x".repeat(RESPONSE_EXCERPT_BYTES), path);
  }
});

Deno.test("a closed port is a connection failure, retried", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  using deps = loopbackDeps();
  const outcome = await deliverWebhook(new URL(`http://127.0.0.1:${port}/hook`), EVENT, deps);
  assert.equal(outcome.kind, "retry");
  assert.equal(outcome.error, "connection_failed");
  assert.equal(outcome.detail, "connection refused");
});
