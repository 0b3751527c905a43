/**
 * One contract for both job queue backends: Deno KV in memory, and Upstash Redis through the
 * REST gateway fixture in front of a real redis-server. Then what only the Redis queue promises
 * within a test's time: several instances share the work, and a killed instance's message goes
 * to another once its lease runs out (the KV equivalent takes a minute:
 * queue_kill_e2e_test.ts).
 */
import assert from "node:assert/strict";
import { SYSTEM_CLOCK } from "../../lib/clock.ts";
import { createKvQueue } from "../../lib/jobs/kv_queue.ts";
import type { QueueMessage } from "../../lib/jobs/queue.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { createKvStore, kvHandleOf } from "../../lib/store/deno_kv.ts";
import {
  kvMemoryBackend,
  type OpenedQueue,
  type QueueBackend,
  spawnQueueConsumer,
  startRedisQueueBackend,
} from "../../testing/queue_backends.ts";
import { eventually } from "../../testing/wait.ts";

function items(count: number, jobId = "job-1"): QueueMessage[] {
  return Array.from({ length: count }, (_, item) => ({ kind: "item", jobId, item }));
}

function keyOf(message: QueueMessage): string {
  return message.kind === "item" ? `${message.jobId}/${message.item}` : message.jobId;
}

function pause(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise the test resolves by hand, to hold handlers while it looks. */
function gate() {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { promise, open: resolve };
}

/**
 * Whether the messages left queued at close were left alone: Redis shows them still waiting;
 * KV (which hides its queue) keeps delivering them to the closed queue, which logs sending
 * each back, so two rounds each prove that deliveries after close did not run.
 */
async function leftAlone(opened: OpenedQueue, leftovers: number): Promise<boolean> {
  const waiting = await opened.waiting();
  if (waiting !== null) return waiting === leftovers;
  const sentBack = opened.lines.filter((line) => String(line.msg).includes("after close"));
  return sentBack.length >= 2 * leftovers;
}

function queueContract(backend: QueueBackend) {
  return async (t: Deno.TestContext) => {
    await t.step("every message sent is delivered", async () => {
      await using opened = await backend.open();
      const seen = new Set<string>();
      opened.queue.listen((message) => {
        seen.add(keyOf(message));
        return Promise.resolve();
      }, { concurrency: 4 });
      await opened.queue.send(items(100));
      await eventually(() => seen.size === 100, "all 100 messages delivered");
    });

    await t.step("a delayed message is not delivered before its delay", async () => {
      await using opened = await backend.open();
      let deliveredAt = 0;
      opened.queue.listen(() => {
        deliveredAt = Date.now();
        return Promise.resolve();
      }, { concurrency: 1 });
      const sentAt = Date.now();
      await opened.queue.send(items(1), { delayMs: 1_000 });
      await eventually(() => deliveredAt > 0, "the delayed message delivered");
      assert.ok(deliveredAt >= sentAt + 1_000, `delivered ${deliveredAt - sentAt} ms after send`);
    });

    await t.step("a delay outside 0..30 days is refused", async () => {
      await using opened = await backend.open();
      await assert.rejects(opened.queue.send(items(1), { delayMs: -1 }), RangeError);
      const tooLong = 31 * 24 * 60 * 60 * 1000;
      await assert.rejects(opened.queue.send(items(1), { delayMs: tooLong }), RangeError);
    });

    await t.step("no more handlers run at once than the concurrency", async () => {
      await using opened = await backend.open();
      let running = 0;
      let most = 0;
      let done = 0;
      opened.queue.listen(async () => {
        most = Math.max(most, ++running);
        await pause(20); // holds the slot so that other deliveries overlap it
        running--;
        done++;
      }, { concurrency: 3 });
      await opened.queue.send(items(30));
      await eventually(() => done === 30, "all 30 messages handled");
      assert.ok(most <= 3, `${most} handlers ran at once`);
    });

    await t.step("a message whose handler throws is delivered again", async () => {
      await using opened = await backend.open();
      const attempts: number[] = [];
      opened.queue.listen((message) => {
        attempts.push(message.kind === "item" ? message.item : -1);
        if (attempts.length === 1) throw new Error("capture failed");
        return Promise.resolve();
      }, { concurrency: 1 });
      await opened.queue.send(items(1));
      await eventually(() => attempts.length >= 2, "the failed message delivered again");
      assert.deepEqual(attempts.slice(0, 2), [0, 0]);
      assert.ok(opened.lines.some((line) => line.level === "error"), "the failure is logged");
    });

    await t.step("close waits for running handlers, and nothing runs after it", async () => {
      await using opened = await backend.open();
      const hold = gate();
      let started = 0;
      let finished = 0;
      opened.queue.listen(async () => {
        started++;
        await hold.promise;
        finished++;
      }, { concurrency: 2 });
      await opened.queue.send(items(4));
      await eventually(() => started === 2, "two handlers running");
      let finishedAtClose = -1;
      const closing = opened.queue.close().then(() => void (finishedAtClose = finished));
      hold.open();
      await closing;
      assert.equal(finishedAtClose, 2, "close resolved only after both handlers finished");
      await eventually(() => leftAlone(opened, 2), "the other two messages left queued");
      assert.equal(started, 2);
    });
  };
}

Deno.test("job queue contract on deno-kv :memory:", queueContract(kvMemoryBackend()));

Deno.test("the KV queue runs on the store's own KV handle", async () => {
  const store = createKvStore(await Deno.openKv(":memory:"), SYSTEM_CLOCK);
  try {
    const kv = kvHandleOf(store);
    assert.ok(kv, "a KV store shows its handle");
    const queue = createKvQueue(kv, { log: createMemoryLogger() });
    const received: QueueMessage[] = [];
    queue.listen((message) => {
      received.push(message);
      return Promise.resolve();
    }, { concurrency: 1 });
    await queue.send(items(1));
    await eventually(() => received.length === 1, "the message delivered");
    await queue.close();
    await store.setValue(["after-queue-close"], 1, 60_000);
    assert.equal(await store.getValue(["after-queue-close"]), 1, "the store's handle stays open");
  } finally {
    await store.close();
  }
});

Deno.test("job queue contract and instances on upstash-redis", async (t) => {
  await using backend = await startRedisQueueBackend();
  await t.step("contract", queueContract(backend));

  await t.step("two instances on one Redis both take messages", async () => {
    const namespace = `shared-${crypto.randomUUID()}:`;
    await using first = backend.instance(namespace);
    await using second = backend.instance(namespace);
    const takenBy = new Map<string, string>();
    const consume = (name: string) => async (message: QueueMessage) => {
      takenBy.set(keyOf(message), name);
      await pause(100); // a capture takes a while, so the other instance gets its turn
    };
    first.queue.listen(consume("first"), { concurrency: 2 });
    second.queue.listen(consume("second"), { concurrency: 2 });
    await first.queue.send(items(40));
    await eventually(() => takenBy.size === 40, "all 40 messages handled");
    const counts = Map.groupBy(takenBy.values(), (name) => name);
    assert.ok((counts.get("first")?.length ?? 0) > 0, "the first instance took some");
    assert.ok((counts.get("second")?.length ?? 0) > 0, "the second instance took some");
  });

  await t.step("a killed consumer's message goes to another once its lease ends", async () => {
    const namespace = `killed-${crypto.randomUUID()}:`;
    await using sender = backend.instance(namespace);
    await sender.queue.send(items(1, "job-killed"));
    await using child = await spawnQueueConsumer(
      ["redis", backend.url, backend.token, namespace, "1000"],
    );
    assert.deepEqual(child.took, { kind: "item", jobId: "job-killed", item: 0 });
    await child.kill();
    await using survivor = backend.instance(namespace, { leaseMs: 1_000 });
    const received: QueueMessage[] = [];
    survivor.queue.listen((message) => {
      received.push(message);
      return Promise.resolve();
    }, { concurrency: 1 });
    await eventually(() => received.length === 1, "the killed consumer's message redelivered");
    assert.deepEqual(received[0], child.took);
  });

  await t.step("the poller outlives a Redis outage, warns once, and resumes", async () => {
    await using opened = await backend.open();
    const received: QueueMessage[] = [];
    opened.queue.listen((message) => {
      received.push(message);
      return Promise.resolve();
    }, { concurrency: 1 });
    const warnings = () => opened.lines.filter((line) => line.level === "warn");
    await backend.stack.server.stop();
    await eventually(() => warnings().length > 0, "the outage logged");
    const { commandLog } = backend.stack.gateway;
    const claimsBefore = commandLog.length;
    await eventually(() => commandLog.length >= claimsBefore + 3, "claims retried");
    assert.equal(warnings().length, 1, "one warning for the whole outage");
    await backend.stack.server.restart();
    await opened.queue.send(items(1, "job-after-outage"));
    await eventually(() => received.length === 1, "delivered once Redis is back");
    assert.ok(opened.lines.some((line) => String(line.msg).includes("reachable again")));
  });
});
