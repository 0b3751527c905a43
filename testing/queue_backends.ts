/** The job queue's backends for the contract suite, and a consumer child process to kill. */
import { SYSTEM_CLOCK } from "../lib/clock.ts";
import { createKvQueue } from "../lib/jobs/kv_queue.ts";
import type { JobQueue, QueueMessage } from "../lib/jobs/queue.ts";
import { createRedisQueue, type RedisQueueOptions } from "../lib/jobs/redis_queue.ts";
import { queueKeys } from "../lib/jobs/redis_queue_scripts.ts";
import { createMemoryLogger, type LogFields } from "../lib/log.ts";
import { openRedisStack, type RedisStack } from "./store_backends.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const CONSUMER_SCRIPT = new URL("./queue_consumer.ts", import.meta.url).pathname;

/** A queue under test with its own messages; disposing it closes the queue and its backend. */
export interface OpenedQueue extends AsyncDisposable {
  queue: JobQueue;
  /** What the queue logged. */
  lines: LogFields[];
  /** How many messages wait in the backend, not taken by any consumer, where it can tell. */
  waiting(): Promise<number | null>;
}

export interface QueueBackend extends AsyncDisposable {
  name: string;
  /** A fresh queue, sharing no message with the ones opened before. */
  open(): Promise<OpenedQueue>;
}

/** Deno KV in memory: each queue gets its own database, so no message of another reaches it. */
export function kvMemoryBackend(): QueueBackend {
  return {
    name: "deno-kv :memory:",
    async open() {
      const kv = await Deno.openKv(":memory:");
      const log = createMemoryLogger();
      const queue = createKvQueue(kv, { log });
      return {
        queue,
        lines: log.lines,
        waiting: () => Promise.resolve(null), // KV does not show its queue
        async [Symbol.asyncDispose]() {
          await queue.close();
          kv.close();
        },
      };
    },
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

/** A Redis queue backend plus the means to open more instances on one namespace. */
export interface RedisQueueBackend extends QueueBackend {
  url: string;
  token: string;
  /** redis-server and the gateway, for outage tests. */
  stack: RedisStack;
  /** Another instance on `namespace`, as a separate service process would open it. */
  instance(namespace: string, options?: Partial<RedisQueueOptions>): OpenedQueue;
}

/** Upstash Redis through the REST gateway fixture: each queue gets its own namespace. */
export async function startRedisQueueBackend(): Promise<RedisQueueBackend> {
  const stack = await openRedisStack(SYSTEM_CLOCK);
  const { url, token } = stack.gateway;
  function instance(namespace: string, options: Partial<RedisQueueOptions> = {}): OpenedQueue {
    const log = createMemoryLogger();
    const queue = createRedisQueue({
      url,
      token,
      clock: SYSTEM_CLOCK,
      log,
      namespace,
      idlePollMs: 50,
      ...options,
    });
    return {
      queue,
      lines: log.lines,
      waiting: async () => Number(await stack.gateway.redis("ZCARD", queueKeys(namespace).due)),
      [Symbol.asyncDispose]: () => queue.close(),
    };
  }
  return {
    name: "upstash-redis via REST gateway",
    url,
    token,
    stack,
    instance,
    open: () => Promise.resolve(instance(`test-${crypto.randomUUID()}:`)),
    [Symbol.asyncDispose]: () => stack[Symbol.asyncDispose](),
  };
}

/** A queue consumer in a child process (testing/queue_consumer.ts), to kill mid-message. */
export interface QueueConsumerChild extends AsyncDisposable {
  /** The message the child took; its handler never finishes. */
  took: QueueMessage;
  /** SIGKILL: no handler, renewal or close runs any more. */
  kill(): Promise<void>;
}

/**
 * Starts the consumer child with `args` (see testing/queue_consumer.ts) and resolves once it
 * took a message.
 */
export async function spawnQueueConsumer(args: string[]): Promise<QueueConsumerChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CONSUMER_SCRIPT, ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const kill = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await child.status;
    await reader.cancel().catch(() => {}); // releases stdout too
  };
  try {
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("queue consumer exited before it took a message");
      text += value;
    }
    const { took } = JSON.parse(text.split("\n")[0]) as { took: QueueMessage };
    return { took, kill, [Symbol.asyncDispose]: kill };
  } catch (error) {
    await kill();
    throw error;
  }
}
