/**
 * The durable queue behind capture jobs (docs/jobs.md): messages survive the instance that sent
 * them, and any instance sharing the store may take any message. Delivery is at least once: a
 * message whose handler did not finish (the instance was killed) is delivered again, so
 * handlers are idempotent (lib/jobs/board.ts decides whether a delivery still has work to do).
 *
 * Two backends, picked like the store (lib/jobs/open_queue.ts): Deno KV's own queue
 * (`enqueue` / `listenQueue`, distributed by Deno Deploy), and a leased queue in Redis through
 * Upstash's REST API when UPSTASH_REDIS_REST_* is set.
 */

/** One unit of work: a job's item to capture, or a webhook delivery attempt. */
export type QueueMessage =
  | { kind: "item"; jobId: string; item: number }
  | { kind: "webhook"; jobId: string; event: string; attempt: number };

/** Handles one message; resolving acknowledges it, throwing (or dying) has it delivered again. */
export type QueueHandler = (message: QueueMessage) => Promise<void>;

export interface JobQueue {
  readonly kind: "deno-kv" | "upstash-redis";
  /**
   * Durably queues `messages`, each delivered once `delayMs` has passed (0: at once; more than
   * 30 days, Deno KV's limit, is a RangeError on both backends).
   */
  send(messages: readonly QueueMessage[], options?: { delayMs?: number }): Promise<void>;
  /**
   * Starts taking messages for `handler`, at most `concurrency` at a time on this instance
   * (further messages stay queued for any instance). Call once.
   */
  listen(handler: QueueHandler, options: { concurrency: number }): void;
  /**
   * Stops taking messages, waits for the handlers running (up to 30 s), releases the backend.
   * A KV queue leaves the store's KV handle open: the store closes it.
   */
  close(): Promise<void>;
}
