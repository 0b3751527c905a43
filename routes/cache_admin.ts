import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import type { AppEnv } from "../lib/http/app_env.ts";
import { parseTargetUrl } from "../lib/capture/target_url.ts";
import { ApiError } from "../lib/errors.ts";
import { createRouter } from "../lib/http/router.ts";

/** SHA-256 of both sides makes the comparison fixed-length, so no length leaks either. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function requireToken(c: Context<AppEnv>, token: string | undefined) {
  const given = c.req.header("Authorization")?.match(/^Bearer[ \t]+(\S+)[ \t]*$/i)?.[1];
  // Constant-time compare: response timing must not reveal how much of a guess was right.
  if (!token || !given || !sameSecret(given, token)) {
    throw new ApiError(401, "unauthorized", "A valid cache-admin token is required.", {
      headers: { "WWW-Authenticate": 'Bearer realm="cache-admin"' },
    });
  }
}

/**
 * DELETE /api/cache?url=<absolute url> | ?all=true (README, "Cache, concurrency and the per-IP limit"): operator-only,
 * so registered with plain `router.delete` and absent from /openapi.json and /llms*.txt.
 */
export function createCacheAdminRouter() {
  return createRouter().delete("/api/cache", async (c) => {
    const { config, captureCache: cache, log } = c.var.deps;
    // Mounted only when the token is set (see createApp); checked again so a mistake fails closed.
    requireToken(c, config.CACHE_ADMIN_TOKEN);
    const { all, url } = c.req.query();
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
      log.error("cache purge failed", { requestId: c.var.requestId, error });
      throw new ApiError(503, "upstream_unavailable", "The cache store is unreachable.", {
        hint: "Retry in a moment; check the store (KV_PATH or Upstash) if it persists.",
      });
    }
    c.var.logFields.purged = purged;
    c.header("Cache-Control", "no-store");
    return c.json({ purged }, 200);
  });
}
