import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { openKvStore } from "./deno_kv.ts";
import type { Store } from "./store.ts";
import type { Clock } from "../clock.ts";
import { createUpstashStore } from "./upstash_redis.ts";

/** Upstash Redis when both UPSTASH_REDIS_REST_* variables are set, otherwise Deno KV. */
export async function openStore(config: Config, clock: Clock, log: Logger): Promise<Store> {
  if (config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN) {
    return createUpstashStore({
      url: config.UPSTASH_REDIS_REST_URL,
      token: config.UPSTASH_REDIS_REST_TOKEN,
      clock,
      log,
    });
  }
  try {
    return await openKvStore(config.KV_PATH, clock);
  } catch (error) {
    // Why: a denied --allow-write (or read) must not take the service down; an ephemeral store
    // keeps captures, posts and the rate limiter working, only without persistence.
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
    log.error("KV_PATH not accessible; using an in-memory store", { error: error.message });
    return await openKvStore(":memory:", clock);
  }
}
