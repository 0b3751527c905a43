/**
 * An app with capture jobs for tests: a solid-colour capturer (or the caller's), the store and
 * queue of either backend, this instance's job worker started, and helpers to submit and poll.
 */
import type { AppDeps, AppParts } from "../lib/http/app_env.ts";
import { createWebhookBoundary } from "../lib/webhooks/boundary.ts";
import { createAppJobWorker } from "../routes/job_items.ts";
import { createCaptureApp } from "./capture_app.ts";
import { eventually } from "./wait.ts";
import type { JobView } from "../lib/jobs/views.ts";
import { createMemoryLogger } from "../lib/log.ts";

export interface JobsAppOptions {
  env?: Record<string, string>;
  deps?: Partial<AppParts>;
  /** Start this instance's worker (default true); false leaves every item queued. */
  worker?: boolean;
}

/** The app, its worker, and submit / poll helpers; dispose to stop all of it. */
export async function createJobsApp(options: JobsAppOptions = {}) {
  const env: Record<string, string> = { ALLOW_PRIVATE_NETWORK: "true", ...options.env };
  const boundary = env.WEBHOOK_SECRET
    ? createWebhookBoundary({
      allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK === "true",
      log: createMemoryLogger(),
    })
    : undefined;
  const t = await createCaptureApp({
    env,
    deps: { ...(boundary ? { webhookBoundary: boundary } : {}), ...options.deps },
  });
  const worker = createAppJobWorker(t.deps as AppDeps);
  if (options.worker !== false) worker.start();

  async function submit(body: unknown, headers: Record<string, string> = {}) {
    return await t.app.request("/api/jobs", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  }

  async function job(id: string): Promise<JobView> {
    const res = await t.app.request(`/api/jobs/${id}`);
    if (res.status !== 200) throw new Error(`GET job ${id}: ${res.status} ${await res.text()}`);
    return await res.json();
  }

  /** Polls the job until `done` says so (default: finished); returns the last view. */
  async function until(
    id: string,
    done: (view: JobView) => boolean = (v) => v.finishedAt !== undefined,
    timeoutMs = 30_000,
  ): Promise<JobView> {
    let last: JobView | undefined;
    await eventually(async () => done(last = await job(id)), `job ${id} to get there`, {
      timeoutMs,
    });
    return last!;
  }

  return {
    ...t,
    worker,
    submit,
    job,
    until,
    async [Symbol.asyncDispose]() {
      await worker.close();
      await t.deps.jobs.queue.close();
      await t.close();
    },
  };
}
