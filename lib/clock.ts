/** The time source every service takes, so expiry, windows and estimates are testable without sleeping. */

/** Injected time source (epoch milliseconds). */
export interface Clock {
  now(): number;
}

export const SYSTEM_CLOCK: Clock = { now: () => Date.now() };

/** Whole seconds until `resetAt`, at least 1 (what Retry-After and retryAfter carry). */
export function secondsUntil(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}
