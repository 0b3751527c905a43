/**
 * Records what a capture backend does without changing it: a "capture.render" span and the
 * capture duration histogram.
 */
import { CaptureFailure, type CaptureJob, type Capturer, type CaptureResult } from "./types.ts";
import { captureFailureError } from "./failures.ts";
import { METRICS, secondsSince } from "../telemetry/metrics.ts";
import { outcomeOf, traced } from "../telemetry/trace.ts";

/** `backend` with every render timed and traced under its name (e.g. "chromium-local"). */
export function instrumentBackend<T extends Capturer>(backend: T, name: string): T {
  return {
    ...backend,
    async capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult> {
      const started = performance.now();
      let outcome = "ok";
      try {
        const attributes = { backend: name, deviceType: job.deviceType };
        return await traced("capture.render", attributes, () => backend.capture(job, signal));
      } catch (error) {
        // Labelled by the code it is answered with, as every other failure is.
        outcome = outcomeOf(error instanceof CaptureFailure ? captureFailureError(error) : error);
        throw error;
      } finally {
        METRICS.captureDuration.observe({ backend: name, outcome }, secondsSince(started));
      }
    },
  };
}
