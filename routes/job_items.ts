/**
 * How a job's item is captured: its request through the same path as POST /api/screenshot
 * (validation, boundary, cache, render queue, frame), answered as bytes plus the JSON answer's
 * fields; and the worker of this instance wired to the app's services.
 */
import type { OutputFormat } from "../lib/capture/mod.ts";
import type { AppDeps } from "../lib/http/app_env.ts";
import { createPacer } from "../lib/http/rate_limit.ts";
import { validationError } from "../lib/http/router.ts";
import { createJobWorker, type ItemRunner, type JobWorker } from "../lib/jobs/worker.ts";
import { type ScreenshotRequest, takeCapture } from "./capture_run.ts";
import { captureFacts, rawMediaType, sizeOf } from "./screenshot_answer.ts";
import { ScreenshotRequestSchema } from "./screenshot_schemas.ts";

/** Runs one item's stored request (validated at submission, parsed again for its defaults). */
export function itemRunner(deps: AppDeps): ItemRunner {
  return async (stored, context) => {
    const parsed = ScreenshotRequestSchema.safeParse(stored);
    if (!parsed.success) throw validationError(parsed.error.issues, stored);
    const request: ScreenshotRequest = parsed.data;
    const format: OutputFormat = request.format ?? "png";
    const capture = await takeCapture(
      {
        deps,
        signal: context.signal,
        logFields: context.logFields,
        // Paced by the worker before it runs: the per-IP turn is taken already.
        admit: null,
        charging: "every-request",
      },
      request,
      format,
    );
    const facts = captureFacts(capture, sizeOf(capture));
    return {
      bytes: capture.image,
      contentType: rawMediaType(format),
      extension: format === "jpeg" ? "jpg" : format === "markdown" ? "md" : format,
      facts: capture.framed ? { ...facts, frame: capture.framed.placement } : facts,
    };
  };
}

/** This instance's job worker over the app's services (main.ts starts it, tests too). */
export function createAppJobWorker(deps: AppDeps): JobWorker {
  const { jobs, config, log, clock, store, objectStorage } = deps;
  return createJobWorker({
    board: jobs.board,
    queue: jobs.queue,
    webhooks: jobs.webhooks,
    objectStorage,
    log,
    config,
    pace: createPacer({ store, log, clock, limit: config.RATE_LIMIT_PER_MINUTE }),
    runItem: itemRunner(deps),
  });
}
