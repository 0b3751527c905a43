import type { Logger } from "../log.ts";
import { withTimeout } from "../timeout.ts";
import type { JobQueue, QueueHandler, QueueMessage } from "./queue.ts";

/** Deno KV refuses an `enqueue` delay above 30 days; both backends share the bound. */
export const MAX_DELAY_MS = 30 * 24 * 60 * 60 * 1000;
// A failed message comes back after this pause: soon, but not in a hot loop.
export const RETRY_DELAY_MS = 1_000;
// close() waits this long for running handlers, so a shutdown is bounded by more than luck.
export const CLOSE_WAIT_MS = 30_000;
// Enqueues per KV atomic commit: one commit (one fsync on a file) for many messages, far under
// KV's limits of 1000 mutations and 800 KiB per commit.
const ENQUEUE_BATCH = 100;

/** The delay of a `send`, checked: a whole number of ms from 0 to 30 days (RangeError else). */
export function checkedDelayMs(delayMs: number | undefined): number {
  const delay = delayMs ?? 0;
  if (!Number.isFinite(delay) || delay < 0 || delay > MAX_DELAY_MS) {
    throw new RangeError(`queue delayMs must be from 0 to ${MAX_DELAY_MS} (30 days): ${delay}`);
  }
  return Math.ceil(delay);
}

/** The `concurrency` of a `listen`, checked: a whole number from 1 (RangeError else). */
export function checkedConcurrency(concurrency: number): number {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`queue concurrency must be a whole number >= 1: ${concurrency}`);
  }
  return concurrency;
}

/**
 * The JobQueue on Deno KV's own queue (`enqueue` / `listenQueue`). `kv` belongs to the store
 * (lib/store/deno_kv.ts `kvHandleOf`): closing the queue leaves it open.
 *
 * KV delivers messages concurrently without bound, so `concurrency` is a local semaphore: a
 * delivered message waits in its handler for a slot, which keeps it in flight (KV redelivers
 * in-flight messages of a killed process after a restart). A handler that throws is logged and
 * its message sent again after RETRY_DELAY_MS, rather than left to KV's backoff schedule, which
 * would drop it after a few attempts.
 */
export function createKvQueue(kv: Deno.Kv, options: { log: Logger }): JobQueue {
  const { log } = options;
  let slots: Semaphore | null = null;
  let closed = false;

  async function send(messages: readonly QueueMessage[], delayMs?: number) {
    const delay = checkedDelayMs(delayMs);
    for (let i = 0; i < messages.length; i += ENQUEUE_BATCH) {
      const commit = kv.atomic();
      for (const message of messages.slice(i, i + ENQUEUE_BATCH)) {
        commit.enqueue(message, { delay });
      }
      const { ok } = await commit.commit();
      if (!ok) throw new Error("deno-kv queue: enqueue was not committed");
    }
  }

  async function sendBack(message: QueueMessage) {
    try {
      await send([message], RETRY_DELAY_MS);
    } catch (error) {
      // Throwing hands the message back to KV, which delivers it again by its own schedule.
      log.error("queue: could not re-send a message", { kind: message.kind, error });
      throw error;
    }
  }

  async function deliver(message: QueueMessage, handler: QueueHandler, semaphore: Semaphore) {
    // Past close() nothing runs: the message goes back to the queue for the next listener.
    if (closed || !await semaphore.acquire()) {
      log.debug("queue: message arrived after close; sent back", { kind: message.kind });
      return sendBack(message);
    }
    try {
      await handler(message);
    } catch (error) {
      log.error("queue: handler failed; message sent again", { kind: message.kind, error });
      await sendBack(message);
    } finally {
      semaphore.release();
    }
  }

  return {
    kind: "deno-kv",

    send: (messages, sendOptions) => send(messages, sendOptions?.delayMs),

    listen(handler, { concurrency }) {
      if (slots) throw new Error("queue: listen() was already called");
      const semaphore = slots = new Semaphore(checkedConcurrency(concurrency));
      kv.listenQueue((message) => deliver(message as QueueMessage, handler, semaphore))
        .catch((error) => log.error("queue: KV stopped delivering", { error }));
    },

    async close() {
      closed = true;
      if (!slots) return;
      slots.close();
      try {
        await withTimeout(slots.idle(), CLOSE_WAIT_MS, "queue handlers running at close");
      } catch (error) {
        log.warn("queue: closed with handlers still running", { error });
      }
    },
  };
}

/** A counting semaphore whose waiters are turned away once it closes. */
class Semaphore {
  #free: number;
  #running = 0;
  #waiters: ((granted: boolean) => void)[] = [];
  #onIdle: (() => void)[] = [];
  #closed = false;

  constructor(capacity: number) {
    this.#free = capacity;
  }

  /** Resolves true with a slot taken, or false when the semaphore closed first. */
  acquire(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#free > 0) {
      this.#free--;
      this.#running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  release() {
    const next = this.#waiters.shift();
    if (next) return next(true);
    this.#free++;
    this.#running--;
    if (this.#running === 0) { for (const notify of this.#onIdle.splice(0)) notify(); }
  }

  /** Turns away every waiter and any later acquire. */
  close() {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter(false);
  }

  /** Resolves once no slot is taken. */
  idle(): Promise<void> {
    if (this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#onIdle.push(resolve));
  }
}
