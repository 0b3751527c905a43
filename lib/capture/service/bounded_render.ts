/**
 * One render of the service: it waits for a render slot (admission.ts), runs under the
 * service's deadline (a backstop: each capturer keeps its own CAPTURE_TIMEOUT_MS), tells the
 * admission whether its duration is a real render's, and answers an unexpected failure with
 * the generic 500 after logging it without query strings.
 */
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import type { Clock } from "../../clock.ts";
import type { CachedCapture } from "./cache.ts";
import type { CaptureAdmission } from "./admission.ts";
import type { CaptureJob, Capturer } from "../types.ts";
import { traced } from "../../telemetry/trace.ts";
import { redactUrls, targetLogFields } from "../request/log_target.ts";
import { hardTimeoutError, renderFailedError } from "../failures.ts";

export interface BoundedRenderOptions {
  capturer: Capturer;
  admission: CaptureAdmission;
  clock: Clock;
  log: Logger;
  /** Backstop for a capturer that never settles. */
  hardTimeoutMs: number;
}

/** A render function that holds a slot for each render and never outlives `hardTimeoutMs`. */
export function createBoundedRender(
  options: BoundedRenderOptions,
): (job: CaptureJob, signal: AbortSignal) => Promise<CachedCapture> {
  const { capturer, admission, clock, log, hardTimeoutMs } = options;
  return async function render(job: CaptureJob, signal: AbortSignal): Promise<CachedCapture> {
    const release = await traced("capture.queue_wait", {}, () => admission.acquire(signal));
    const deadline = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let outcome: "finished" | "abandoned" = "abandoned";
    try {
      const work = capturer.capture(job, AbortSignal.any([signal, deadline.signal]));
      work.catch(() => {}); // after the deadline nobody awaits it
      const expired = new Promise<never>((_, reject) => {
        // Why: a hung capturer would hold its slot forever and starve the queue.
        timer = setTimeout(() => {
          deadline.abort();
          reject(hardTimeoutError(hardTimeoutMs));
        }, hardTimeoutMs);
      });
      const result = await Promise.race([work, expired]);
      outcome = "finished";
      return { ...result, capturedAt: clock.now() };
    } catch (error) {
      // A page that failed on its own took a real render's time; a timeout or a client that
      // left did not end the render, so its duration teaches the admission estimate nothing.
      const cutOff = signal.aborted || deadline.signal.aborted ||
        (error instanceof ApiError && error.status === 408);
      if (!cutOff) outcome = "finished";
      if (error instanceof ApiError || signal.aborted) throw error;
      log.error("capture failed", { ...await targetLogFields(job.url), error: redactError(error) });
      throw renderFailedError();
    } finally {
      clearTimeout(timer);
      release(outcome);
    }
  };
}

/** An unexpected error for the log, without the query strings its message may quote. */
function redactError(error: unknown): { name?: string; message: string } {
  if (!(error instanceof Error)) return { message: redactUrls(String(error)) };
  return { name: error.name, message: redactUrls(error.message) };
}
