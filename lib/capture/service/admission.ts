/**
 * Admission of renders by expected wait: a bounded queue in front of MAX_CONCURRENT_CAPTURES
 * render slots, refusing early (a queue_full CaptureFailure, answered 503 with Retry-After) what
 * could not finish within the budget.
 */
import { CaptureFailure } from "../types.ts";
import type { Clock } from "../../clock.ts";

// Before any render has been measured, one is assumed to take this long: between a simple page
// (about 0.6 s per render with two at once on 2 cores) and a heavy one (about 1.8 s).
export const PRIOR_RENDER_MS = 1_000;
// How much each finished render moves the estimate: recent renders dominate within about ten.
const SMOOTHING = 0.2;
// Whatever the estimate says, no more than this many renders wait per slot (memory stays flat).
const MAX_QUEUED_PER_SLOT = 64;

export interface CaptureAdmission {
  /**
   * Waits for a render slot; throws a queue_full CaptureFailure when the expected wait is past
   * the budget. The release
   * it resolves with says whether the render ran to its own end: only those teach the estimate.
   */
  acquire(signal: AbortSignal): Promise<Release>;
  stats(): { running: number; queued: number; renderMs: number };
}

/**
 * Gives the slot back. "finished": the render ran to its own end (an image or the page's own
 * failure) and its duration is a sample of render time. "abandoned": cancelled or cut off by a
 * timeout, so its duration says nothing about the next render (one 15 s timeout would
 * otherwise nearly quadruple the estimate and refuse captures that would fit).
 */
export type Release = (outcome: "finished" | "abandoned") => void;

export interface CaptureAdmissionOptions {
  /** Renders at once (MAX_CONCURRENT_CAPTURES). */
  max: number;
  /** Longest expected time to finish a newly admitted render (CAPTURE_TIMEOUT_MS). */
  budgetMs: number;
  /** Measures render durations. */
  clock: Clock;
  /** Hard ceiling on waiting renders, whatever the estimate (default 64 per slot). */
  maxQueued?: number;
}

/**
 * A counting semaphore for renders, admitted by time rather than by count: `max` run at once
 * and a FIFO queue takes a new render while everything ahead of it plus itself, at the
 * measured throughput (`max` per smoothed render time), would finish within `budgetMs`.
 */
export function createCaptureAdmission(options: CaptureAdmissionOptions): CaptureAdmission {
  const { max, budgetMs, clock } = options;
  const maxQueued = options.maxQueued ?? max * MAX_QUEUED_PER_SLOT;
  let renderMs = PRIOR_RENDER_MS;
  let running = 0;
  const queue: Array<() => void> = [];

  /** Seconds until the queue has drained enough to admit one more, or 0 if it may join now. */
  function wouldWaitTooLong(): number {
    const ahead = running + queue.length + 1;
    const finishMs = (ahead * renderMs) / max;
    if (finishMs <= budgetMs && queue.length < maxQueued) return 0;
    const fits = Math.floor((budgetMs * max) / renderMs);
    const excess = Math.max(1, ahead - Math.min(fits, running + maxQueued));
    return Math.max(1, Math.ceil((excess * renderMs) / max / 1000));
  }

  function releaser(): Release {
    const started = clock.now();
    let released = false;
    return (outcome) => {
      if (released) return;
      released = true;
      if (outcome === "finished") {
        const took = Math.max(0, clock.now() - started);
        renderMs += SMOOTHING * (took - renderMs);
      }
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
      const retryAfter = wouldWaitTooLong();
      if (retryAfter > 0) {
        return Promise.reject(
          new CaptureFailure({ kind: "queue_full", retryAfterS: retryAfter }),
        );
      }
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
    stats: () => ({ running, queued: queue.length, renderMs: Math.round(renderMs) }),
  };
}
