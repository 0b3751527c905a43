import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { rateLimitBucket } from "./client_ip.ts";
import { withTimeout } from "../timeout.ts";
import { secondsUntil } from "../clock.ts";
import { ApiError, rateLimited } from "../errors.ts";
import type { Logger } from "../log.ts";
import { clientIpOf } from "./middleware.ts";
import type { Store, WindowVerdict } from "../store/store.ts";
import { METRICS } from "../telemetry/metrics.ts";
import { createMemoryWindow, type MemoryWindow } from "./memory_window.ts";

/** The sliding window of RATE_LIMIT_PER_MINUTE. */
export const RATE_WINDOW_MS = 60_000;
// A limiter stuck on a sick store would turn a store outage into a capture outage; past this
// the request is counted in this instance's memory instead (never simply let through: an
// attacker who can slow the store down must not switch the limit off). Generous on purpose: under a load test, 1.5 s expired from event-loop queueing alone and let
// hundreds of requests skip the limit; a store that is really down fails faster than this
// (the Upstash client's own budget is 2 s).
export const RATE_STORE_TIMEOUT_MS = 5_000;
// Name of the policy in the IETF RateLimit-Policy / RateLimit fields.
const POLICY = "per-ip";

/** One limiter check: the verdict, and whether the store or this instance's memory gave it. */
export interface RateVerdict {
  verdict: WindowVerdict;
  source: "store" | "memory";
}

export interface RateLimitCheck {
  store: Store;
  log: Logger;
  bucket: string;
  limit: number;
  /** Epoch ms (the app's clock) for the in-memory window. */
  now: number;
  /** Where hits are counted while the store fails; one per store by default. */
  fallback?: MemoryWindow;
  timeoutMs?: number;
}

// One in-memory window per store, i.e. per running app (tests run several apps in one process).
const fallbacks = new WeakMap<Store, MemoryWindow>();

/** The in-memory window used for `store` while it fails. */
export function fallbackWindowOf(store: Store): MemoryWindow {
  let window = fallbacks.get(store);
  if (!window) {
    window = createMemoryWindow(RATE_WINDOW_MS);
    fallbacks.set(store, window);
  }
  return window;
}

/**
 * Counts one hit for `bucket` in the store's sliding window; when the store fails or is slower
 * than the timeout (logged), in a per-instance in-memory sliding window instead (fail closed).
 */
export async function hitRateLimit(check: RateLimitCheck): Promise<RateVerdict> {
  const { store, log, bucket, limit } = check;
  try {
    const verdict = await withTimeout(
      store.hitWindow(["rate", "capture", bucket], limit, RATE_WINDOW_MS),
      check.timeoutMs ?? RATE_STORE_TIMEOUT_MS,
      "rate-limit store",
    );
    return { verdict, source: "store" };
  } catch (error) {
    log.warn("rate limiter store failed; counting in memory", { bucket, error });
    const window = check.fallback ?? fallbackWindowOf(store);
    return { verdict: window.hit(bucket, limit, check.now), source: "memory" };
  }
}

/** What `refundRateLimit` needs: the check that counted the hit, and its verdict. */
export interface RateRefund {
  check: RateLimitCheck;
  counted: RateVerdict;
}

/**
 * Takes back the hit of `counted` where it was counted (the store, or this instance's memory);
 * a hit that was refused takes nothing back. A store that fails or is slow keeps the hit
 * (logged): a refund never fails the request, and never lets it count twice less.
 */
export async function refundRateLimit(refund: RateRefund): Promise<void> {
  const { check, counted } = refund;
  const { store, log, bucket } = check;
  const hit = counted.verdict.hit;
  if (!hit) return;
  if (counted.source === "memory") {
    (check.fallback ?? fallbackWindowOf(store)).refund(bucket, hit.at, check.now);
    return;
  }
  try {
    await withTimeout(
      store.refundWindow(["rate", "capture", bucket], hit, RATE_WINDOW_MS),
      check.timeoutMs ?? RATE_STORE_TIMEOUT_MS,
      "rate-limit store",
    );
  } catch (error) {
    log.warn("rate limiter store failed; the refused capture stays counted", { bucket, error });
  }
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
  return rateLimited("Too many captures from this IP address.", {
    hint: `Wait ${retryAfter} seconds before retrying: the limit is ${verdict.limit} requests ` +
      "per minute per IP (a request refused with 400, or with 503 before any work, is not " +
      "counted).",
    extra: { retryAfter },
    headers: { ...rateLimitHeaders(verdict, now), "Retry-After": String(retryAfter) },
  });
}

/** A capture counted against its client's limit, which can be given back once. */
export interface CaptureCharge {
  /** Gives the hit back (a capture refused before any work); a second call does nothing. */
  refund(): Promise<void>;
}

/**
 * The per-IP capture limit for this request (call it after validation, so refused requests do
 * not count): sets the rate-limit headers, or throws the 429. While the store fails, the limit
 * is enforced per instance from memory. The charge it returns gives the hit back.
 */
export async function enforceCaptureRateLimit(c: Context<AppEnv>): Promise<CaptureCharge> {
  const { store, log, clock, config } = c.var.deps;
  const bucket = rateLimitBucket(clientIpOf(c));
  const check = { store, log, bucket, limit: config.RATE_LIMIT_PER_MINUTE, now: clock.now() };
  const counted = await hitRateLimit(check);
  const { verdict, source } = counted;
  if (source === "memory") c.var.logFields.rateLimit = "in-memory";
  const now = clock.now();
  if (!verdict.allowed) {
    METRICS.rateLimited.inc();
    throw rateLimitedError(verdict, now);
  }
  for (const [name, value] of Object.entries(rateLimitHeaders(verdict, now))) c.header(name, value);
  let refunded = false;
  return {
    async refund() {
      if (refunded) return;
      refunded = true;
      c.var.logFields.rateLimitRefunded = true;
      await refundRateLimit({ check: { ...check, now: clock.now() }, counted });
    },
  };
}

/**
 * The per-IP limit for work that is not an HTTP request (a job's items): a turn is taken from
 * the same window as synchronous captures, or the time until one frees is named.
 */
export function createPacer(
  deps: { store: Store; log: Logger; clock: { now(): number }; limit: number },
) {
  const { store, log, clock, limit } = deps;
  return async (bucket: string) => {
    const check = { store, log, bucket, limit, now: clock.now() };
    const counted = await hitRateLimit(check);
    if (!counted.verdict.allowed) {
      return {
        allowed: false as const,
        retryInMs: Math.max(1, counted.verdict.resetAt - clock.now()),
      };
    }
    return {
      allowed: true as const,
      giveBack: () => refundRateLimit({ check: { ...check, now: clock.now() }, counted }),
    };
  };
}
