/**
 * A job's webhooks end to end over loopback: signed events the reference library verifies,
 * links and never bytes, per-item events when asked, retries on failure with the attempt
 * recorded, and receivers the boundary refuses.
 */
import assert from "node:assert/strict";
import { createJobsApp } from "../../testing/jobs_app.ts";
import { TEST_WEBHOOK_SECRET, webhookReceiver } from "../../testing/webhook_receiver.ts";
import { eventually } from "../../testing/wait.ts";
import { assertEnvelope } from "../../testing/envelope.ts";

const env = { WEBHOOK_SECRET: TEST_WEBHOOK_SECRET };

Deno.test("job.completed and item.completed arrive signed, with links and no bytes", async () => {
  await using receiver = webhookReceiver();
  await using t = await createJobsApp({ env });
  const res = await t.submit({
    requests: [{ url: "https://example.com/1" }, { url: "https://example.com/2" }],
    webhook: { url: receiver.url("/ok").href, events: ["job.completed", "item.completed"] },
  });
  assert.equal(res.status, 202);
  const { id } = await res.json();
  await eventually(() => receiver.received.length === 3, "two item events and one job event");
  for (const delivery of receiver.received) {
    assert.equal(delivery.verified, true, "the reference library verifies the signature");
    assert.equal(delivery.headers["content-type"], "application/json");
    assert.doesNotMatch(delivery.body, /iVBORw0KGgo/, "no base64 PNG in an event");
  }
  const events = receiver.received.map((d) => JSON.parse(d.body));
  const job = events.find((e) => e.type === "job.completed");
  assert.ok(job, "job.completed sent");
  assert.equal(job.data.id, id);
  assert.equal(job.data.status, "done");
  assert.equal(job.data.items.length, 2);
  for (const item of job.data.items) {
    assert.equal(item.status, "done");
    assert.match(item.imageUrl, /^http:\/\/localhost\/api\/captures\//);
  }
  const items = events.filter((e) => e.type === "item.completed");
  assert.deepEqual(items.map((e) => e.data.item.index).toSorted(), [0, 1]);
  // Stable ids per event: a receiver drops repeats by webhook-id.
  const ids = receiver.received.map((d) => d.headers["webhook-id"]);
  assert.equal(new Set(ids).size, 3);
  assert.ok(ids.includes(`msg_${id}_job.completed`));
  await eventually(async () => {
    const view = await t.job(id);
    return view.webhook?.deliveries["job.completed"]?.status === "delivered";
  }, "the delivery recorded in the job");
});

Deno.test("a failing receiver is retried on the schedule and the attempt recorded", async () => {
  await using receiver = webhookReceiver();
  await using t = await createJobsApp({ env });
  const { id } = await (await t.submit({
    requests: [{ url: "https://example.com/1" }],
    webhook: { url: receiver.url("/status/503").href },
  })).json();
  const view = await t.until(
    id,
    (v) => v.webhook?.deliveries["job.completed"]?.attempts === 1,
  );
  const delivery = view.webhook!.deliveries["job.completed"];
  assert.equal(delivery.status, "pending");
  assert.equal(delivery.lastStatus, 503);
  // The second attempt is due within about 5 s (plus up to a tenth) of the first.
  assert.ok(delivery.nextAttemptAt! <= Date.now() + 5_500, "the first retry within seconds");
  assert.equal(receiver.received.length, 1);
});

Deno.test("a webhook at a forbidden address is refused at submission", async () => {
  // The production boundary: loopback and private receivers are refused.
  await using t = await createJobsApp({
    env: { ...env, ALLOW_PRIVATE_NETWORK: "false" },
    worker: false,
  });
  for (const url of ["http://127.0.0.1:9/hook", "http://10.0.0.1/hook", "ftp://example.com/"]) {
    const res = await t.submit({ requests: [{ url: "https://example.com" }], webhook: { url } });
    const envelope = await assertEnvelope(t.app, res, 400, "invalid_url");
    assert.match(String(envelope.message), /^webhook\.url: /, url);
  }
});
