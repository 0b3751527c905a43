/**
 * Capture jobs as the routes and the MCP tools use them: submit (recorded, then queued),
 * read, cancel. The work itself is the worker's (lib/jobs/worker.ts), on any instance.
 */
import type { Clock } from "../clock.ts";
import { rateLimited } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { JobBoard } from "./board.ts";
import type { JobQueue } from "./queue.ts";
import type { JobState, WebhookEventName } from "./types.ts";
import type { JobViews } from "./views.ts";
import type { JobWebhooks } from "./webhook_events.ts";
import type { WebhookBoundary } from "../webhooks/boundary.ts";

/** Requests one job may carry. */
export const MAX_JOB_ITEMS = 100;
/** A job's body may carry up to 100 requests, some with html: bounded as a whole. */
export const JOBS_BODY_LIMIT = 16 * 1024 * 1024;

export interface JobSubmission {
  /** Each item's capture request, defaults already applied and validated. */
  requests: unknown[];
  webhook?: { url: string; events: WebhookEventName[] };
  /** The submitter's rate-limit bucket. */
  client: string;
  /** The service's public address, for links. */
  baseUrl: string;
}

export interface JobService {
  readonly board: JobBoard;
  readonly views: JobViews;
  readonly queue: JobQueue;
  readonly webhooks: JobWebhooks;
  /** The webhooks' egress boundary; absent without WEBHOOK_SECRET (webhooks are refused). */
  readonly webhookBoundary?: WebhookBoundary;
  /** Records and queues a job; 429 when its client has too many items waiting already. */
  submit(submission: JobSubmission): Promise<JobState>;
  get(id: string): Promise<JobState | null>;
  /** Cancels what has not started; null when there is no such job. */
  cancel(id: string): Promise<JobState | null>;
}

export interface JobServiceDeps {
  board: JobBoard;
  views: JobViews;
  queue: JobQueue;
  webhooks: JobWebhooks;
  webhookBoundary?: WebhookBoundary;
  store: Store;
  clock: Clock;
  log: Logger;
  config: {
    JOB_TTL_SECONDS: number;
    JOB_MAX_QUEUED_PER_IP: number;
    RATE_LIMIT_PER_MINUTE: number;
  };
}

/** 128 random bits: a job's id is all it takes to read its results. */
function newJobId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `job_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** A well-formed job id (anything else is not looked up). */
export function isJobId(id: string): boolean {
  return /^job_[0-9a-f]{32}$/.test(id);
}

const clientKey = (client: string) => ["jobs", "client", client];

export function createJobService(deps: JobServiceDeps): JobService {
  const { board, queue, store, clock, log, config } = deps;
  const ttlMs = config.JOB_TTL_SECONDS * 1000;

  /** Items of `client`'s jobs still queued or running, and the ids of those jobs. */
  async function waitingOf(ids: string[]) {
    const states = await Promise.all(ids.map((id) => board.get(id)));
    const live = states.filter((s): s is JobState => s !== null && s.finishedAt === undefined);
    const waiting = live.reduce(
      (sum, s) =>
        sum + s.items.filter((i) => i.status === "queued" || i.status === "running").length,
      0,
    );
    return { waiting, live: live.map((s) => s.id) };
  }

  /** Adds `id` to its client's list of unfinished jobs, unless that would pass the cap. */
  async function admit(client: string, id: string, items: number) {
    for (;;) {
      const read = await store.getVersioned<string[]>(clientKey(client));
      const { waiting, live } = await waitingOf(read.value ?? []);
      if (waiting + items > config.JOB_MAX_QUEUED_PER_IP) {
        const retryAfter = Math.max(1, Math.ceil(waiting / config.RATE_LIMIT_PER_MINUTE * 60));
        throw rateLimited(
          `This IP address has ${waiting} job items waiting; ${items} more would pass the ` +
            `limit of ${config.JOB_MAX_QUEUED_PER_IP}.`,
          {
            hint: `Wait for your jobs to finish (about ${retryAfter} s at your per-IP rate) or ` +
              "cancel one with DELETE /api/jobs/{id}, then submit again.",
            extra: { retryAfter },
            headers: { "Retry-After": String(retryAfter) },
          },
        );
      }
      if (await store.setValueIfVersion(clientKey(client), [...live, id], read.version, ttlMs)) {
        return;
      }
    }
  }

  return {
    board,
    views: deps.views,
    queue,
    webhooks: deps.webhooks,
    webhookBoundary: deps.webhookBoundary,

    async submit(submission) {
      const id = newJobId();
      const now = clock.now();
      const { requests, webhook, client, baseUrl } = submission;
      await admit(client, id, requests.length);
      const state: JobState = {
        id,
        status: "queued",
        total: requests.length,
        createdAt: now,
        expiresAt: now + ttlMs,
        client,
        baseUrl,
        ...(webhook ? { webhook: { ...webhook, deliveries: {} } } : {}),
        items: requests.map(() => ({ status: "queued" as const, tries: 0 })),
      };
      await board.create(state, requests);
      try {
        await queue.send(requests.map((_, item) => ({ kind: "item" as const, jobId: id, item })));
      } catch (error) {
        // Not queued, never run: cancelled, so it holds none of its client's places.
        await board.cancel(id).catch(() => {});
        throw error;
      }
      log.info("job submitted", { jobId: id, items: requests.length, webhook: !!webhook });
      return state;
    },

    get: (id) => isJobId(id) ? board.get(id) : Promise.resolve(null),

    async cancel(id) {
      if (!isJobId(id)) return null;
      const cancelled = await board.cancel(id);
      if (!cancelled) return await board.get(id);
      if (cancelled.jobFinished) {
        log.info("job cancelled", { jobId: id });
        await deps.webhooks.jobFinished(cancelled.state);
      }
      return cancelled.state;
    },
  };
}
