/**
 * A job's webhooks: the events it asked for are queued when they happen (`job.completed` when
 * its last item finishes or it is cancelled, `item.completed` per item if asked), then each is
 * delivered by whichever instance takes it from the queue: signed (Standard Webhooks), through
 * the webhooks' egress boundary, retried on the schedule of lib/webhooks/schedule.ts. Bodies
 * carry links, never image bytes.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { WebhookBoundary } from "../webhooks/boundary.ts";
import { deliverWebhook } from "../webhooks/deliver.ts";
import { MAX_ATTEMPTS, retryDelayMs } from "../webhooks/schedule.ts";
import type { JobBoard } from "./board.ts";
import type { JobQueue, QueueMessage } from "./queue.ts";
import type { JobState, WebhookProgress } from "./types.ts";
import { type ItemView, jobLinks, type JobViews } from "./views.ts";

/** The event id of item `n`'s completion (also the key of its delivery record). */
const itemEvent = (n: number) => `item.completed.${n}`;

export interface JobWebhooks {
  /** Queues `item.completed` for item `n` if the job asked for it. */
  itemFinished(state: JobState, n: number): Promise<void>;
  /** Queues `job.completed` if the job has a webhook. */
  jobFinished(state: JobState): Promise<void>;
  /** One delivery attempt of a queued event, and the next one scheduled if it failed. */
  deliver(message: Extract<QueueMessage, { kind: "webhook" }>): Promise<void>;
}

export interface JobWebhooksDeps {
  board: JobBoard;
  queue: JobQueue;
  views: JobViews;
  /** Absent when WEBHOOK_SECRET is unset (jobs with a webhook are then refused). */
  boundary?: WebhookBoundary;
  secret?: string;
  clock: Clock;
  log: Logger;
  /** Test seam: shortens the bound of one attempt. */
  timeoutMs?: number;
}

/** What an item event says of its item: status, result facts and links, or the error. */
function itemPayload(state: JobState, item: ItemView) {
  return { jobId: state.id, links: { job: jobLinks(state).self }, item };
}

/** What `job.completed` says: the job's status and counts, and each item briefly. */
function jobPayload(state: JobState, items: ItemView[]) {
  return {
    id: state.id,
    status: state.status,
    total: state.total,
    links: { self: jobLinks(state).self },
    items: items.map((item) => ({
      index: item.index,
      status: item.status,
      ...(item.result ? { imageUrl: item.result.imageUrl, links: item.links } : {}),
      ...(item.error ? { error: { code: item.error.code, message: item.error.message } } : {}),
    })),
  };
}

export function createJobWebhooks(deps: JobWebhooksDeps): JobWebhooks {
  const { board, queue, views, clock, log } = deps;

  async function enqueue(state: JobState, event: string) {
    const pending: WebhookProgress = { status: "pending", attempts: 0 };
    await board.recordWebhook(state.id, event, pending);
    await queue.send([{ kind: "webhook", jobId: state.id, event, attempt: 1 }]);
  }

  return {
    async itemFinished(state, n) {
      if (!state.webhook?.events.includes("item.completed")) return;
      await enqueue(state, itemEvent(n));
    },

    async jobFinished(state) {
      if (!state.webhook?.events.includes("job.completed")) return;
      await enqueue(state, "job.completed");
    },

    async deliver(message) {
      const { jobId, event, attempt } = message;
      const state = await board.get(jobId);
      const webhook = state?.webhook;
      const progress = webhook?.deliveries[event];
      // Gone, or this attempt already ran (a repeated delivery of the queue's message).
      if (!state || !webhook || !progress || progress.status !== "pending") return;
      if (progress.attempts >= attempt) return;
      if (!deps.boundary || !deps.secret) {
        log.error("webhook not sent: WEBHOOK_SECRET is not set on this instance", { jobId });
        return;
      }
      const item = event.startsWith("item.completed.")
        ? Number(event.slice("item.completed.".length))
        : null;
      const payload = item === null
        ? jobPayload(state, await Promise.all(state.items.map((_, n) => views.item(state, n))))
        : itemPayload(state, await views.item(state, item));
      const type = item === null ? "job.completed" : "item.completed";
      const outcome = await deliverWebhook(
        new URL(webhook.url),
        // The same id on every attempt, so a receiver drops a repeat it already handled.
        { id: `msg_${jobId}_${event}`, type, payload },
        {
          boundary: deps.boundary,
          secret: deps.secret,
          clock,
          ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
        },
      );
      const next = outcome.kind === "retry" ? retryDelayMs(attempt + 1) : null;
      const record: WebhookProgress = {
        status: outcome.kind === "delivered" ? "delivered" : next === null ? "failed" : "pending",
        attempts: attempt,
        ...(outcome.status !== undefined ? { lastStatus: outcome.status } : {}),
        ...(outcome.error ? { lastError: outcome.error } : {}),
        ...(next !== null ? { nextAttemptAt: clock.now() + next } : {}),
        ...(outcome.kind === "delivered" ? { deliveredAt: clock.now() } : {}),
      };
      await board.recordWebhook(jobId, event, record);
      log.info("webhook", {
        jobId,
        event,
        attempt,
        outcome: outcome.kind,
        status: outcome.status,
        error: outcome.error,
        detail: outcome.detail,
        ms: outcome.elapsedMs,
        ...(next !== null ? { nextInMs: next } : {}),
        ...(record.status === "failed" && attempt >= MAX_ATTEMPTS ? { givenUp: true } : {}),
      });
      if (next !== null) {
        await queue.send([{ kind: "webhook", jobId, event, attempt: attempt + 1 }], {
          delayMs: next,
        });
      }
    },
  };
}
