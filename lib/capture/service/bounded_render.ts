/**
 * One render of the service: it waits for a render slot (admission.ts), runs under the
 * service's deadline (a backstop: each capturer keeps its own CAPTURE_TIMEOUT_MS), tells the
 * admission whether its duration is a real render's, and answers: a CaptureFailure by the one
 * mapping (capture/failures.ts), an unexpected failure with the generic 500 after logging it
 * without query strings. This is the edge where the service's failures become the API's.
 */
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import type { Clock } from "../../clock.ts";
import type { CachedCapture } from "./cache.ts";
import type { CaptureAdmission } from "./admission.ts";
import { outputBudgetMs } from "../request/output.ts";
import { viewportOf } from "../request/viewport.ts";
import { CaptureFailure, type CaptureJob, type Capturer } from "../types.ts";
import { traced } from "../../telemetry/trace.ts";
import { redactUrls, targetLogFields } from "../request/log_target.ts";
import { captureFailureError, renderFailedError } from "../failures.ts";

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
    const release = await traced("capture.queue_wait", {}, () => admission.acquire(signal))
      .catch((error) => {
        throw answer(error);
      });
    // A recording takes its frames after the page's own budget: it has that much longer.
    const limitMs = hardTimeoutMs +
      outputBudgetMs(job.options, viewportOf(job.deviceType, job.options));
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
          reject(new CaptureFailure({ kind: "deadline", ms: limitMs }));
        }, limitMs);
      });
      const result = await Promise.race([work, expired]);
      outcome = "finished";
      return { ...result, capturedAt: clock.now() };
    } catch (error) {
      // A page that failed on its own took a real render's time; a timeout or a client that
      // left did not end the render, so its duration teaches the admission estimate nothing.
      const cutOff = signal.aborted || deadline.signal.aborted || timedOut(error);
      if (!cutOff) outcome = "finished";
      if (error instanceof CaptureFailure || error instanceof ApiError || signal.aborted) {
        throw answer(error);
      }
      log.error("capture failed", { ...await targetLogFields(job.url), error: redactError(error) });
      throw renderFailedError();
    } finally {
      clearTimeout(timer);
      release(outcome);
    }
  };
}

/** A typed failure as the API's answer; anything else as it is. */
function answer(error: unknown): unknown {
  return error instanceof CaptureFailure ? captureFailureError(error) : error;
}

/** The capture's own budget ran out (its page, an awaited element, the paint). */
function timedOut(error: unknown): boolean {
  return error instanceof CaptureFailure && error.detail.kind === "page_failed" &&
    error.detail.timedOut;
}

/** An unexpected error for the log, without the query strings its message may quote. */
function redactError(error: unknown): { name?: string; message: string } {
  if (!(error instanceof Error)) return { message: redactUrls(String(error)) };
  return { name: error.name, message: redactUrls(error.message) };
}
