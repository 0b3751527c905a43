/**
 * Standard Webhooks signatures (lib/webhooks/signature.ts): the convention's published example,
 * random messages cross-checked both ways with the reference library, and verification refusing
 * tampered bodies, ids and timestamps, the wrong secret and stale or future timestamps.
 */
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import fc from "fast-check";
import {
  secretKeyBytes,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
} from "../../lib/webhooks/signature.ts";

// The convention's own example.
const EXAMPLE = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const AT_EXAMPLE = EXAMPLE.timestamp * 1000;
const randomSecret = () => `whsec_${crypto.getRandomValues(new Uint8Array(32)).toBase64()}`;

Deno.test("the published example signs to the published signature", async () => {
  const signature = await signWebhook(EXAMPLE, EXAMPLE.secret);
  assert.equal(signature, EXAMPLE.signature);
  const headers = await webhookHeaders(EXAMPLE, EXAMPLE.secret);
  assert.deepEqual(headers, {
    "webhook-id": EXAMPLE.id,
    "webhook-timestamp": "1614265330",
    "webhook-signature": EXAMPLE.signature,
  });
  assert.deepEqual(
    await verifyWebhook(headers, EXAMPLE.body, EXAMPLE.secret, { now: AT_EXAMPLE }),
    { valid: true },
  );
});

Deno.test("the example delivery in docs/jobs.md carries the signature it shows", async () => {
  const body =
    '{"type":"capture.completed","timestamp":"2026-11-28T15:00:00.000Z","data":{"captureId":"cap_1"}}';
  const message = { id: "msg_2f6QYwvTQpPa3rHcKq1GmS", timestamp: 1795878000, body };
  assert.equal(
    await signWebhook(message, EXAMPLE.secret),
    "v1,imDUTDZzc+JPGfDaPBtm1DSFk8yCw7lsNKRSv/pCgQs=",
  );
});

Deno.test("random messages sign as the reference library signs, and verify both ways", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/[\r\n]/.test(s)),
      fc.integer({ min: 1_000_000_000, max: 4_000_000_000 }),
      // The reference library parses what it verifies as JSON, so bodies are JSON documents.
      fc.string({ maxLength: 2000, unit: "grapheme" }).map((text) => JSON.stringify({ text })),
      async (id, timestamp, body) => {
        const secret = randomSecret();
        const reference = new Webhook(secret);
        const ours = await signWebhook({ id, timestamp, body }, secret);
        assert.equal(ours, reference.sign(id, new Date(timestamp * 1000), body));
        // The reference library checks the timestamp against the real clock, so sign for now.
        const now = Math.floor(Date.now() / 1000);
        const headers = await webhookHeaders({ id, timestamp: now, body }, secret);
        assert.doesNotThrow(() => reference.verify(body, headers));
        assert.deepEqual(await verifyWebhook(headers, body, secret), { valid: true });
      },
    ),
    { numRuns: 100 },
  );
});

Deno.test("verification refuses a tampered body, id or timestamp and the wrong secret", async () => {
  const headers = await webhookHeaders(EXAMPLE, EXAMPLE.secret);
  const verify = (h: Record<string, string>, body = EXAMPLE.body, secret = EXAMPLE.secret) =>
    verifyWebhook(h, body, secret, { now: AT_EXAMPLE });
  const badSignature = { valid: false, reason: "bad_signature" };
  assert.deepEqual(await verify(headers, '{"test": 2432232315}'), badSignature);
  assert.deepEqual(await verify({ ...headers, "webhook-id": "msg_other" }), badSignature);
  assert.deepEqual(
    await verify({ ...headers, "webhook-timestamp": String(EXAMPLE.timestamp + 1) }),
    badSignature,
  );
  assert.deepEqual(await verify(headers, EXAMPLE.body, randomSecret()), badSignature);
  // A signature of another version, or one cut short, is no match.
  const value = EXAMPLE.signature.slice(3);
  assert.deepEqual(await verify({ ...headers, "webhook-signature": `v2,${value}` }), badSignature);
  assert.deepEqual(
    await verify({ ...headers, "webhook-signature": `v1,${value.slice(0, 20)}` }),
    badSignature,
  );
  assert.deepEqual(await verify({ ...headers, "webhook-signature": "" }), {
    valid: false,
    reason: "missing_headers",
  });
});

Deno.test("one good signature among several verifies (secret rotation)", async () => {
  const headers = await webhookHeaders(EXAMPLE, EXAMPLE.secret);
  const other = await signWebhook(EXAMPLE, randomSecret());
  const both = { ...headers, "webhook-signature": `${other} v1,bm90IGEgbWFj ${EXAMPLE.signature}` };
  assert.deepEqual(await verifyWebhook(both, EXAMPLE.body, EXAMPLE.secret, { now: AT_EXAMPLE }), {
    valid: true,
  });
  const onlyOthers = { ...headers, "webhook-signature": `${other} v1,bm90IGEgbWFj` };
  assert.deepEqual(
    await verifyWebhook(onlyOthers, EXAMPLE.body, EXAMPLE.secret, { now: AT_EXAMPLE }),
    { valid: false, reason: "bad_signature" },
  );
});

Deno.test("a timestamp outside the tolerance is refused, either way; the tolerance is a choice", async () => {
  const headers = new Headers({ ...await webhookHeaders(EXAMPLE, EXAMPLE.secret) });
  const at = (seconds: number, toleranceSeconds?: number) =>
    verifyWebhook(headers, EXAMPLE.body, EXAMPLE.secret, {
      now: AT_EXAMPLE + seconds * 1000,
      toleranceSeconds,
    });
  const stale = { valid: false, reason: "stale_timestamp" };
  assert.deepEqual(await at(300), { valid: true });
  assert.deepEqual(await at(301), stale);
  assert.deepEqual(await at(-301), stale);
  assert.deepEqual(await at(3600, 7200), { valid: true });
  headers.set("webhook-timestamp", "1614265330.5");
  assert.deepEqual(await at(0), { valid: false, reason: "bad_timestamp" });
});

Deno.test("secrets: whsec_ and base64 of 24 to 64 bytes, never echoed in errors", async () => {
  assert.equal(secretKeyBytes(EXAMPLE.secret)?.length, 24);
  for (
    const bad of [
      "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", // no prefix
      `whsec_${new Uint8Array(23).toBase64()}`, // too short
      `whsec_${new Uint8Array(65).toBase64()}`, // too long
      "whsec_not base64 at all!!!!!!!!!!!!!!!",
    ]
  ) {
    assert.equal(secretKeyBytes(bad), null, bad);
    await assert.rejects(
      () => signWebhook(EXAMPLE, bad),
      (error: Error) => !error.message.includes(bad.slice(6, 20)),
    );
  }
});
