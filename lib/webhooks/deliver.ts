/**
 * One delivery attempt of a webhook: a signed JSON POST through a fresh session of the webhooks'
 * egress proxy, so the receiver is judged, resolved once and connected by checked address like
 * any page's request; no redirect is followed, the exchange is bounded in time and the answer in
 * bytes. The outcome says whether to retry (lib/webhooks/schedule.ts decides when).
 */
import { isIpLiteral } from "../egress/address.ts";
import { sendThroughProxy } from "../egress/proxied_fetch.ts";
import type { EgressRefusal } from "../egress/types.ts";
import type { Clock } from "../clock.ts";
import { abortAfter } from "../timeout.ts";
import { DELIVERY_TIMEOUT_MS, type WebhookBoundary } from "./boundary.ts";
import { webhookHeaders } from "./signature.ts";
import type { DeliveryError, DeliveryOutcome, WebhookEvent } from "./types.ts";

/** Names the sender in the receiver's logs. */
export const WEBHOOK_USER_AGENT = "Shotline-Webhooks/1.0";
// Enough of a receiver's error page to say what went wrong; the rest is not read.
export const RESPONSE_EXCERPT_BYTES = 4 * 1024;
// A receiver saying "too soon" or "try later": worth another attempt, unlike other 4xx.
const RETRIED_CLIENT_ERRORS = new Set([408, 429]);

export interface DeliveryDeps {
  boundary: WebhookBoundary;
  /** WEBHOOK_SECRET, `whsec_...`. */
  secret: string;
  /** The body's `timestamp` and the `webhook-timestamp` header. */
  clock: Clock;
  /** The bound of the whole exchange; DELIVERY_TIMEOUT_MS unless given (tests shorten it). */
  timeoutMs?: number;
  /** Test seam: roots trusted for https receivers besides the built-in ones. */
  caCerts?: string[];
}

/** Sends `event` to `target` once and says what became of it; never throws for the network. */
export async function deliverWebhook(
  target: URL,
  event: WebhookEvent,
  deps: DeliveryDeps,
): Promise<DeliveryOutcome> {
  const started = performance.now();
  const now = deps.clock.now();
  const body = JSON.stringify({
    type: event.type,
    timestamp: new Date(now).toISOString(),
    data: event.payload,
  });
  const signed = await webhookHeaders(
    { id: event.id, timestamp: Math.floor(now / 1000), body },
    deps.secret,
  );
  const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  using deadline = abortAfter(timeoutMs, new Error(`no answer within ${timeoutMs} ms`));
  // A session per attempt: its refusals are this attempt's, and closing it cuts whatever the
  // proxy still holds open for it (a receiver that never answers), so nothing outlives the bound.
  const session = deps.boundary.proxy.openSession();
  let answer;
  try {
    answer = await sendThroughProxy(target.href, {
      route: { proxyUrl: session.url },
      method: "POST",
      headers: {
        ...signed,
        "content-type": "application/json",
        "user-agent": WEBHOOK_USER_AGENT,
      },
      body: new TextEncoder().encode(body),
      maxBytes: RESPONSE_EXCERPT_BYTES,
      overflow: "cut",
      signal: deadline.signal,
      caCerts: deps.caCerts,
    });
  } finally {
    session.close();
  }
  const elapsedMs = Math.round(performance.now() - started);
  if (answer.ok) {
    const { status } = answer;
    const kind = status >= 200 && status < 300
      ? "delivered"
      : status >= 500 || RETRIED_CLIENT_ERRORS.has(status)
      ? "retry"
      // 3xx included: a redirect is not followed, and the next attempt would get it again.
      : "failed";
    return {
      kind,
      status,
      elapsedMs,
      responseExcerpt: new TextDecoder().decode(answer.bytes),
      responseCut: answer.cut,
    };
  }
  if (deadline.signal.aborted) {
    return { kind: "retry", error: "timeout", detail: answer.reason, elapsedMs };
  }
  const refusal = session.refusals[0];
  if (answer.refused && refusal) return refusedOutcome(target, refusal, elapsedMs);
  return { kind: "retry", error: "connection_failed", detail: answer.reason, elapsedMs };
}

/** What the boundary's refusal means for this delivery. */
function refusedOutcome(
  target: URL,
  refusal: EgressRefusal,
  elapsedMs: number,
): DeliveryOutcome {
  const errors: Record<EgressRefusal["kind"], DeliveryError> = {
    forbidden_address: "refused",
    unresolvable: "dns_failed",
    dns_failed: "dns_failed",
    connect_failed: "connection_failed",
  };
  const error = errors[refusal.kind];
  // A literal address never changes: refused once, refused forever. A name that was checked at
  // submission and now resolves somewhere forbidden may move back (or was rebound on purpose:
  // either way nothing is sent, and the schedule gives up in time).
  const permanent = error === "refused" && isIpLiteral(target.hostname);
  const detail = error === "connection_failed" ? refusal.detail : "refused by the boundary";
  return { kind: permanent ? "failed" : "retry", error, detail, elapsedMs };
}
