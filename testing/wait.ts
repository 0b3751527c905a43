/** The one bounded wait of the tests: state that other code, processes or browsers bring about. */
import assert from "node:assert/strict";

export interface WaitOptions {
  /** Give up (and fail with `what`) after this long; default 10 s. */
  timeoutMs?: number;
  /**
   * Pause between polls; default 25 ms. 0 polls after each turn of the event loop, for state
   * that in-process promises bring about (no fixed sleep).
   */
  intervalMs?: number;
}

/**
 * The bound for what waits on Chromium itself: a launch, a page load in a fresh browser, the
 * exit of its helpers and the removal of its profile. On a 2-core machine running other
 * browsers (load 12 and more) each takes seconds to tens of seconds; the bound only turns a
 * hang into a failure, so it is generous.
 */
export const BROWSER_WAIT_MS = 90_000;

/** Polls `condition` until it holds; fails the test with `what` when the bound runs out. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options: WaitOptions = {},
): Promise<void> {
  const { timeoutMs = 10_000, intervalMs = 25 } = options;
  const deadline = performance.now() + timeoutMs;
  while (!await condition()) {
    if (performance.now() > deadline) assert.fail(`${what} (waited ${timeoutMs} ms)`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
