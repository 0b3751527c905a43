/** Raised by `withTimeout` when the work did not settle in time. */
export class TimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
    this.name = "TimeoutError";
  }
}

/**
 * Settles like `work`, or rejects after `ms` with TimeoutError naming `what` (or with the error
 * `what` makes). The work itself keeps running (a store call cannot be cancelled); its late
 * result or error is ignored.
 */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  what: string | (() => Error),
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const error = () => typeof what === "string" ? new TimeoutError(what, ms) : what();
    timer = setTimeout(() => reject(error()), ms);
  });
  work.catch(() => {}); // a late failure after the timeout must not become an unhandled rejection
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** An abort signal with a deadline; `clear()` (or `using`) stops the timer once the work is done. */
export interface Deadline extends Disposable {
  signal: AbortSignal;
  clear(): void;
}

/** A signal that aborts with `reason` after `ms`, so the caller can tell its timeout by reason. */
export function abortAfter(ms: number, reason: unknown): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason), ms);
  const clear = () => clearTimeout(timer);
  return { signal: controller.signal, clear, [Symbol.dispose]: clear };
}
