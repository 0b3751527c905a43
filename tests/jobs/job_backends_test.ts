/**
 * The same job on the other backends: the Upstash store with its Redis queue (a real
 * redis-server behind the REST gateway fixture), and results in a real S3-compatible bucket
 * (s3rver on loopback behind a SigV4-checking front) served by presigned URLs.
 */
import assert from "node:assert/strict";
import { createJobsApp } from "../../testing/jobs_app.ts";
import { openRedisStack } from "../../testing/store_backends.ts";
import { startS3Server } from "../../testing/s3_server.ts";
import { TEST_WEBHOOK_SECRET, webhookReceiver } from "../../testing/webhook_receiver.ts";
import { eventually } from "../../testing/wait.ts";

const requests = [
  { url: "https://example.com/1" },
  { url: "https://example.com/2", colorScheme: "dark" },
];

Deno.test("a job on Upstash Redis: store, queue and webhook", async () => {
  const clock = { now: () => Date.now() };
  await using redis = await openRedisStack(clock);
  await using receiver = webhookReceiver();
  await using t = await createJobsApp({
    env: {
      UPSTASH_REDIS_REST_URL: redis.gateway.url,
      UPSTASH_REDIS_REST_TOKEN: redis.gateway.token,
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    },
    deps: { store: redis.store },
  });
  assert.equal(t.deps.jobs.queue.kind, "upstash-redis");
  const { id } = await (await t.submit({
    requests,
    webhook: { url: receiver.url("/ok").href },
  })).json();
  const view = await t.until(id);
  assert.equal(view.status, "done");
  for (const [n, item] of view.items.entries()) {
    assert.equal(item.status, "done");
    const bytes = await t.app.request(`/api/jobs/${id}/items/${n}`);
    assert.equal(bytes.status, 200);
    assert.equal((await bytes.arrayBuffer()).byteLength, item.result!.bytes);
  }
  await eventually(() => receiver.received.length === 1, "the job.completed event");
  assert.equal(receiver.received[0].verified, true);
});

Deno.test("job results in an S3 bucket, served by presigned URLs", async () => {
  await using s3 = await startS3Server();
  await using t = await createJobsApp({ env: s3.env() });
  assert.equal(t.deps.objectStorage.kind, "s3");
  const { id } = await (await t.submit({ requests })).json();
  const view = await t.until(id);
  for (const [n, item] of view.items.entries()) {
    const { imageUrl } = item.result!;
    assert.match(imageUrl, /X-Amz-Signature=/, "a presigned URL");
    const fromBucket = await fetch(imageUrl);
    assert.equal(fromBucket.status, 200);
    const bucketBytes = new Uint8Array(await fromBucket.arrayBuffer());
    const fromService = await t.app.request(`/api/jobs/${id}/items/${n}`);
    assert.deepEqual(new Uint8Array(await fromService.arrayBuffer()), bucketBytes);
  }
});
