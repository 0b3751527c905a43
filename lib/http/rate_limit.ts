import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { rateLimitBucket } from "./client_ip.ts";
import { withTimeout } from "../timeout.ts";
import { ApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { clientIpOf } from "./middleware.ts";
import type { Store, WindowVerdict } from "../store/store.ts";
import { METRICS } from "../telemetry/metrics.ts";

/** The sliding window of RATE_LIMIT_PER_MINUTE. */
export const RATE_WINDOW_MS = 60_000;
// A limiter stuck on a sick store would turn a store outage into a capture outage; past this
// the request goes through (fail open) and the capture concurrency bound still protects us.
// Generous on purpose: under a load test, 1.5 s expired from event-loop queueing alone and let
// hundreds of requests skip the limit; a store that is really down fails faster than this
// (the Upstash client's own budget is 2 s).
export const RATE_STORE_TIMEOUT_MS = 5_000;
// Name of the policy in the IETF RateLimit-Policy / RateLimit fields.
const POLICY = "per-ip";

/**
 * Counts one hit for `bucket` in the store's sliding window; null when the store failed or was
 * slower than `timeoutMs` (logged), so the caller lets the request through.
 */
export async function hitRateLimit(
  store: Store,
  log: Logger,
  bucket: string,
  limit: number,
  timeoutMs = RATE_STORE_TIMEOUT_MS,
): Promise<WindowVerdict | null> {
  try {
    return await withTimeout(
      store.hitWindow(["rate", "capture", bucket], limit, RATE_WINDOW_MS),
      timeoutMs,
      "rate-limit store",
    );
  } catch (error) {
    log.warn("rate limiter failed open", { bucket, error });
    return null;
  }
}

/** Whole seconds until `resetAt`, at least 1 (what Retry-After and retryAfter carry). */
export function secondsUntil(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}

/** X-RateLimit-* (the documented headers, reset in epoch ms) and the IETF RateLimit-Policy / RateLimit fields. */
export function rateLimitHeaders(verdict: WindowVerdict, now: number): Record<string, string> {
  const seconds = Math.max(0, Math.ceil((verdict.resetAt - now) / 1000));
  return {
    "X-RateLimit-Limit": String(verdict.limit),
    "X-RateLimit-Remaining": String(verdict.remaining),
    "X-RateLimit-Reset": String(verdict.resetAt),
    "RateLimit-Policy": `"${POLICY}";q=${verdict.limit};w=${RATE_WINDOW_MS / 1000}`,
    "RateLimit": `"${POLICY}";r=${verdict.remaining};t=${seconds}`,
  };
}

/** The documented 429: retryAfter equals Retry-After, the hint names the wait and the limit. */
export function rateLimitedError(verdict: WindowVerdict, now: number): ApiError {
  const retryAfter = secondsUntil(verdict.resetAt, now);
  return new ApiError(429, "rate_limited", "Too many captures from this IP address.", {
    hint: `Wait ${retryAfter} seconds before retrying: the limit is ${verdict.limit} requests ` +
      "per minute per IP.",
    extra: { retryAfter },
    headers: { ...rateLimitHeaders(verdict, now), "Retry-After": String(retryAfter) },
  });
}

/**
 * The per-IP capture limit for this request (call it after validation, so refused requests do
 * not count): sets the rate-limit headers, or throws the 429. Fails open when the store fails.
 */
export async function enforceCaptureRateLimit(c: Context<AppEnv>): Promise<void> {
  const { store, log, clock, config } = c.var.deps;
  const bucket = rateLimitBucket(clientIpOf(c));
  const verdict = await hitRateLimit(store, log, bucket, config.RATE_LIMIT_PER_MINUTE);
  if (!verdict) {
    c.var.logFields.rateLimit = "failed-open";
    return;
  }
  const now = clock.now();
  if (!verdict.allowed) {
    METRICS.rateLimited.inc();
    throw rateLimitedError(verdict, now);
  }
  for (const [name, value] of Object.entries(rateLimitHeaders(verdict, now))) c.header(name, value);
}
