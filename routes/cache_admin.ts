import { parseTargetUrl } from "../lib/capture/mod.ts";
import { invalidRequest, unsupportedValue, upstreamUnavailable } from "../lib/errors.ts";
import { createRouter } from "../lib/http/router.ts";
import { operatorCaller } from "../lib/http/middleware.ts";

/**
 * DELETE /api/cache?url=<absolute url> | ?all=true (docs/capture.md, "Cache, concurrency and the per-IP limit"): operator-only,
 * so registered with plain `router.delete` and absent from /openapi.json and /llms*.txt.
 */
export function createCacheAdminRouter() {
  return createRouter().delete("/api/cache", async (c) => {
    const { config, captureCache: cache, log, operatorAuth, screenshots } = c.var.deps;
    // Mounted only when the token is set (see createApp); checked again so a mistake fails closed.
    operatorAuth.require(operatorCaller(c), config.CACHE_ADMIN_TOKEN, "cache-admin");
    const { all, url } = c.req.query();
    let purge: () => Promise<number>;
    if (all !== undefined) {
      if (all !== "true") {
        throw unsupportedValue("all must be true.", {
          hint: "Send ?all=true to purge every capture, or ?url=<absolute url> for one page.",
        });
      }
      purge = () => cache.purgeAll();
    } else if (url) {
      // Purging fetches nothing, so any URL that could have been cached is accepted.
      const normalised = parseTargetUrl(url, { allowPrivateNetwork: true });
      purge = () => cache.purgeUrl(normalised);
    } else {
      throw invalidRequest("Say what to purge.", {
        hint: "Send ?url=<absolute url> to purge one page, or ?all=true to purge everything.",
      });
    }
    let purged: number;
    try {
      // An answer goes out before its cache write lands: a purge that ran ahead of those writes
      // would see them land after it, and the purged captures would come back.
      await screenshots.writesSettled();
      purged = await purge();
    } catch (error) {
      log.error("cache purge failed", { requestId: c.var.requestId, error });
      throw upstreamUnavailable("The cache store is unreachable.", {
        hint: "Retry in a moment; check the store (KV_PATH or Upstash) if it persists.",
      });
    }
    c.var.logFields.purged = purged;
    c.header("Cache-Control", "no-store");
    return c.json({ purged }, 200);
  });
}
