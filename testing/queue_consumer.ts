/**
 * A job queue consumer run as a child process by tests (testing/queue_backends.ts
 * `spawnQueueConsumer`): it listens with concurrency 1, prints `{"took": message}` on stdout
 * when a message reaches its handler, and never finishes that handler, so the test can kill
 * the process with the message in flight.
 *
 *   deno run -A testing/queue_consumer.ts kv <kv file>
 *   deno run -A testing/queue_consumer.ts redis <url> <token> <namespace> <leaseMs>
 */
import { SYSTEM_CLOCK } from "../lib/clock.ts";
import { createKvQueue } from "../lib/jobs/kv_queue.ts";
import type { JobQueue, QueueMessage } from "../lib/jobs/queue.ts";
import { createRedisQueue } from "../lib/jobs/redis_queue.ts";
import { createLogger } from "../lib/log.ts";

// Logs go to stderr: stdout carries only the announcement the test reads.
const log = createLogger("warn", (line) => console.error(line));

async function openQueue([backend, ...args]: string[]): Promise<JobQueue> {
  if (backend === "kv") return createKvQueue(await Deno.openKv(args[0]), { log });
  if (backend === "redis") {
    const [url, token, namespace, leaseMs] = args;
    return createRedisQueue({
      url,
      token,
      namespace,
      leaseMs: Number(leaseMs),
      clock: SYSTEM_CLOCK,
      log,
    });
  }
  throw new Error(`unknown queue backend: ${backend}`);
}

function hangWith(message: QueueMessage): Promise<void> {
  console.log(JSON.stringify({ took: message }));
  // A timer keeps the process alive on its own: the test kills it.
  setInterval(() => {}, 60_000);
  return new Promise(() => {});
}

if (import.meta.main) {
  const queue = await openQueue(Deno.args);
  queue.listen(hangWith, { concurrency: 1 });
}
