import { ApiError } from "../errors.ts";

// When the queue is full, clients are told to come back after roughly the time it takes to
// drain it: about 3 captures/s on 2 cores (README, Performance), so a few seconds.
export const QUEUE_FULL_RETRY_AFTER_S = 5;

export interface CaptureSlots {
  /** Waits for a render slot; throws 503 when the wait queue is full, the reason on abort. */
  acquire(signal: AbortSignal): Promise<() => void>;
  stats(): { running: number; queued: number };
}

/** The 503 of a full queue, with Retry-After. */
export function queueFullError(): ApiError {
  return new ApiError(503, "upstream_unavailable", "Too many captures are in progress.", {
    hint: `Wait ${QUEUE_FULL_RETRY_AFTER_S} seconds and retry; the capture queue is full.`,
    headers: { "Retry-After": String(QUEUE_FULL_RETRY_AFTER_S) },
  });
}

/**
 * A counting semaphore for renders: `max` run at once (MAX_CONCURRENT_CAPTURES) and at most
 * `maxQueued` wait, FIFO; a bounded queue keeps memory and latency bounded under a flood.
 */
export function createCaptureSlots(max: number, maxQueued: number): CaptureSlots {
  let running = 0;
  const queue: Array<() => void> = [];

  function releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.shift();
      // The slot passes straight to the next waiter, so `running` stays the same.
      if (next) next();
      else running--;
    };
  }

  return {
    acquire(signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      if (running < max) {
        running++;
        return Promise.resolve(releaser());
      }
      if (queue.length >= maxQueued) return Promise.reject(queueFullError());
      return new Promise((resolve, reject) => {
        const grant = () => {
          signal.removeEventListener("abort", onAbort);
          resolve(releaser());
        };
        const onAbort = () => {
          const index = queue.indexOf(grant);
          if (index !== -1) queue.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        queue.push(grant);
      });
    },
    stats: () => ({ running, queued: queue.length }),
  };
}
