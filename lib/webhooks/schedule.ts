/**
 * When a webhook delivery that asked to be retried is tried again: the first retries within
 * seconds (a receiver restarting), the third attempt about a minute in, then further apart over
 * hours (a receiver down for maintenance), then the delivery is given up. The table is in
 * docs/jobs.md#retries.
 */

/** Delay before attempts 2, 3, ... 7, in milliseconds; after attempt 7 the delivery is given up. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000, // 5 s
  60_000, // 1 min
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3_600_000, // 2 h
  5 * 3_600_000, // 5 h
];

/** Attempts in all, the first one included. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

// Up to a tenth more than the table, so receivers that failed together are not retried in step.
const JITTER_FRACTION = 0.1;

export interface RetryOptions {
  /** A number in [0, 1): the jitter's draw. Tests pass a constant. */
  random?: () => number;
}

/**
 * How long to wait before attempt `attempt` (2 for the first retry), or null when there is no
 * such attempt and the delivery is given up. Attempt 1 goes out at once (0).
 */
export function retryDelayMs(attempt: number, options: RetryOptions = {}): number | null {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > MAX_ATTEMPTS) return null;
  if (attempt === 1) return 0;
  const base = RETRY_DELAYS_MS[attempt - 2];
  const draw = Math.min(Math.max((options.random ?? Math.random)(), 0), 1);
  return base + Math.floor(base * JITTER_FRACTION * draw);
}
