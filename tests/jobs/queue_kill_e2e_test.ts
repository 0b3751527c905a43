/**
 * A message in flight in a killed process is delivered again on Deno KV (file backend): KV
 * requeues it once the dead process's lease on it runs out, which happens about a minute after
 * the database is opened again, hence its own `_e2e` file (left out of `test:quick`).
 */
import assert from "node:assert/strict";
import { createKvQueue } from "../../lib/jobs/kv_queue.ts";
import type { QueueMessage } from "../../lib/jobs/queue.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { spawnQueueConsumer } from "../../testing/queue_backends.ts";
import { eventually } from "../../testing/wait.ts";

// KV requeues a dead process's message about 60 s after the reopen (measured); twice that is
// the bound that only turns a lost message into a failure.
const REDELIVERY_WAIT_MS = 120_000;

Deno.test("a killed process's message in flight is delivered again on deno-kv", async () => {
  const dir = await Deno.makeTempDir({ prefix: "shotline_queue_kill_" });
  const path = `${dir}/queue.sqlite3`;
  try {
    const sender = await Deno.openKv(path);
    const message: QueueMessage = { kind: "item", jobId: "job-killed", item: 3 };
    await createKvQueue(sender, { log: createMemoryLogger() }).send([message]);
    sender.close();

    await using child = await spawnQueueConsumer(["kv", path]);
    assert.deepEqual(child.took, message);
    await child.kill();

    const kv = await Deno.openKv(path);
    const queue = createKvQueue(kv, { log: createMemoryLogger() });
    try {
      const received: QueueMessage[] = [];
      queue.listen((delivered) => {
        received.push(delivered);
        return Promise.resolve();
      }, { concurrency: 1 });
      await eventually(() => received.length > 0, "the killed process's message redelivered", {
        timeoutMs: REDELIVERY_WAIT_MS,
        intervalMs: 250,
      });
      assert.deepEqual(received, [message]);
    } finally {
      await queue.close();
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
