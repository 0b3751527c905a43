/**
 * What a capture job is made of, as the board keeps it in the store and the routes show it
 * (docs/jobs.md). The state record is small (a few dozen bytes an item) so that one
 * compare-and-set moves an item; requests and results live beside it.
 */
import type { ErrorEnvelope } from "../errors.ts";

export type JobStatus = "queued" | "running" | "done" | "failed" | "cancelled";
export type ItemStatus = "queued" | "running" | "done" | "failed" | "cancelled";

/** Where one item stands. */
export interface ItemState {
  status: ItemStatus;
  /** Runs started so far (a run of an instance that was killed counts). */
  tries: number;
  /** The run that holds the item (running), or whose result it shows (done, failed). */
  claim?: string;
  /** Until when the running claim holds without being renewed (epoch ms). */
  leaseUntil?: number;
  startedAt?: number;
  finishedAt?: number;
  /**
   * Set when the item failed because this many runs died without an answer (it has no result
   * record then). Other failures keep their envelope with their result, not here: the state
   * stays small (Deno KV holds at most 64 KiB a value).
   */
  exhaustedAfter?: number;
}

/** Events a webhook may ask for; `job.completed` is sent when none are named. */
export const WEBHOOK_EVENTS = ["job.completed", "item.completed"] as const;
export type WebhookEventName = typeof WEBHOOK_EVENTS[number];

/** What became of one webhook event. */
export interface WebhookProgress {
  status: "pending" | "delivered" | "failed";
  attempts: number;
  /** The receiver's last status, when it answered. */
  lastStatus?: number;
  /** Why the last attempt got no usable answer (timeout, refused, ...). */
  lastError?: string;
  /** When the next attempt is due (pending after a failed attempt), epoch ms. */
  nextAttemptAt?: number;
  deliveredAt?: number;
}

/** A job's webhook: where, which events, and how each event's delivery went. */
export interface JobWebhook {
  url: string;
  events: WebhookEventName[];
  /** Keyed by event id (`job.completed`, or `item.completed.<n>`). */
  deliveries: Record<string, WebhookProgress>;
}

/** The job's record: its items' states and what the job asked for beyond its requests. */
export interface JobState {
  id: string;
  status: JobStatus;
  total: number;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  cancelledAt?: number;
  /** When the job and its results are gone (createdAt + JOB_TTL_SECONDS). */
  expiresAt: number;
  /** The submitter's rate-limit bucket: its items are paced by its per-IP allowance. */
  client: string;
  /** The service's public address at submission, for links in results and webhooks. */
  baseUrl: string;
  webhook?: JobWebhook;
  items: ItemState[];
}

/** A finished item's result as stored: the capture's answer without its bytes, or the error. */
export type StoredItemResult =
  | {
    ok: true;
    /** The synchronous answer's fields, without `screenshot` / `content`. */
    result: Record<string, unknown>;
    /** Where its bytes are in object storage, and what they are. */
    object: { key: string; contentType: string; bytes: number };
  }
  | { ok: false; error: ErrorEnvelope };
