import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import type { AppEnv } from "../lib/http/app_env.ts";
import { captureCacheOf } from "../lib/capture/cache.ts";
import { parseTargetUrl } from "../lib/capture/target_url.ts";
import type { Config } from "../lib/config.ts";
import { ApiError } from "../lib/errors.ts";
import { createRouter } from "../lib/http/router.ts";
import { clientIpOf } from "../lib/http/middleware.ts";
import { createMemoryWindow, type MemoryWindow } from "../lib/http/memory_window.ts";
import { secondsUntil } from "../lib/http/rate_limit.ts";

/** Failed token attempts allowed per client IP and minute; then every attempt gets 429. */
export const ADMIN_FAILURES_PER_MINUTE = 10;
const FAILURE_WINDOW_MS = 60_000;

/** SHA-256 of both sides makes the comparison fixed-length, so no length leaks either. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Online guessing is throttled per IP: after ADMIN_FAILURES_PER_MINUTE failures, every attempt
 * (a right one included, or the throttle would confirm a guess) gets 429 until the window moves.
 * Counted in this instance's memory: the store may be what is under attack or down.
 */
function requireToken(c: Context<AppEnv>, token: string, failures: MemoryWindow) {
  const ip = clientIpOf(c);
  const now = c.var.deps.clock.now();
  const state = failures.peek(ip, ADMIN_FAILURES_PER_MINUTE, now);
  if (!state.allowed) {
    const retryAfter = secondsUntil(state.resetAt, now);
    c.var.deps.log.warn("cache-admin attempts throttled", { clientIp: ip });
    throw new ApiError(429, "rate_limited", "Too many failed cache-admin attempts.", {
      hint: `Wait ${retryAfter} seconds; at most ${ADMIN_FAILURES_PER_MINUTE} failed attempts ` +
        "per minute are accepted from one IP address.",
      extra: { retryAfter },
      headers: { "Retry-After": String(retryAfter) },
    });
  }
  const given = c.req.header("Authorization")?.match(/^Bearer[ \t]+(\S+)[ \t]*$/i)?.[1];
  // Constant-time compare: response timing must not reveal how much of a guess was right.
  if (!given || !sameSecret(given, token)) {
    failures.hit(ip, ADMIN_FAILURES_PER_MINUTE, now);
    c.var.deps.log.warn("cache-admin token refused", { clientIp: ip });
    throw new ApiError(401, "unauthorized", "A valid cache-admin token is required.", {
      headers: { "WWW-Authenticate": 'Bearer realm="cache-admin"' },
    });
  }
}

/**
 * DELETE /api/cache?url=<absolute url> | ?all=true (CONFIG.md): operator-only, so registered
 * with plain `router.delete` and absent from /openapi.json and /llms*.txt. Without
 * CACHE_ADMIN_TOKEN the route does not exist at all (404 for every method).
 */
export function createCacheAdminRouter(config: Config) {
  const router = createRouter();
  const token = config.CACHE_ADMIN_TOKEN;
  if (!token) return router;
  const failures = createMemoryWindow(FAILURE_WINDOW_MS);

  router.delete("/api/cache", async (c) => {
    requireToken(c, token, failures);
    const { all, url } = c.req.query();
    const cache = captureCacheOf(c.var.deps);
    let purge: () => Promise<number>;
    if (all !== undefined) {
      if (all !== "true") {
        throw new ApiError(400, "unsupported_value", "all must be true.", {
          hint: "Send ?all=true to purge every capture, or ?url=<absolute url> for one page.",
        });
      }
      purge = () => cache.purgeAll();
    } else if (url) {
      // Purging fetches nothing, so any URL that could have been cached is accepted.
      const normalised = parseTargetUrl(url, { allowPrivateNetwork: true });
      purge = () => cache.purgeUrl(normalised);
    } else {
      throw new ApiError(400, "invalid_request", "Say what to purge.", {
        hint: "Send ?url=<absolute url> to purge one page, or ?all=true to purge everything.",
      });
    }
    let purged: number;
    try {
      purged = await purge();
    } catch (error) {
      c.var.deps.log.error("cache purge failed", { requestId: c.var.requestId, error });
      throw new ApiError(503, "upstream_unavailable", "The cache store is unreachable.", {
        hint: "Retry in a moment; check the store (KV_PATH or Upstash) if it persists.",
      });
    }
    c.var.logFields.purged = purged;
    c.header("Cache-Control", "no-store");
    return c.json({ purged }, 200);
  });
  return router;
}
