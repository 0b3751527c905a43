/**
 * What the rest of the service reads of webhooks: the event a job sends, what became of one
 * delivery attempt, and the refusal of a target at submission (the route layer's 400).
 */

/** One event to deliver: `id` is the idempotency key receivers see as `webhook-id`. */
export interface WebhookEvent {
  /** Stable across retries of the same event (`msg_...`), so a receiver can drop duplicates. */
  id: string;
  /** Dotted event name, e.g. `capture.completed`. */
  type: string;
  /** Sent as the body's `data`; must survive JSON.stringify. */
  payload: unknown;
}

/** Why an attempt got no usable answer. */
export type DeliveryError =
  /** The whole exchange did not finish within the bound. */
  | "timeout"
  /** The boundary would not connect the receiver's address (it is, or now resolves, forbidden). */
  | "refused"
  /** The receiver's name did not resolve, or the lookup failed. */
  | "dns_failed"
  /** No connection, or one that broke before a whole answer head arrived. */
  | "connection_failed";

/**
 * What became of one attempt, for logs and job views: `delivered` (2xx), `retry` (worth another
 * attempt on the schedule) or `failed` (permanently: a retry would get the same answer). Never
 * carries the secret or the signature.
 */
export interface DeliveryOutcome {
  kind: "delivered" | "retry" | "failed";
  /** The receiver's status, when it answered. */
  status?: number;
  /** Why there is no status. */
  error?: DeliveryError;
  /** A few words on the failure for the log (no address the boundary refused). */
  detail?: string;
  /** The first bytes of the receiver's answer, as text (a receiver's error message). */
  responseExcerpt?: string;
  /** True when the receiver's answer went on past the excerpt (and was not read further). */
  responseCut?: boolean;
  /** From the attempt's start to its outcome. */
  elapsedMs: number;
}

/** Why a webhook URL is refused at submission. */
export type InvalidTargetReason =
  | "malformed"
  | "scheme"
  | "credentials"
  | "forbidden_address"
  | "unresolvable"
  | "dns_failed";

/** A webhook URL the service will not deliver to; the route layer answers 400 `invalid_url`. */
export class InvalidWebhookTarget extends Error {
  constructor(readonly reason: InvalidTargetReason, message: string, readonly hint: string) {
    super(message);
    this.name = "InvalidWebhookTarget";
  }
}
