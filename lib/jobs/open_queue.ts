/** Picks the job queue of the store the service already uses (docs/jobs.md#the-queue). */
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { kvHandleOf } from "../store/deno_kv.ts";
import type { Store } from "../store/store.ts";
import { upstreamUnavailable } from "../errors.ts";
import { createKvQueue } from "./kv_queue.ts";
import type { JobQueue } from "./queue.ts";
import { createRedisQueue } from "./redis_queue.ts";

/**
 * Redis (Upstash REST) when the store is Upstash, else Deno KV's own queue on the store's KV
 * handle; `store` is the store as opened, before any wrapper.
 */
export function openJobQueue(
  deps: { store: Store; config: Config; clock: Clock; log: Logger },
): JobQueue {
  const { store, config, clock, log } = deps;
  // Decided as openStore decides (by the configuration), not by asking the store.
  if (config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN) {
    return createRedisQueue({
      url: config.UPSTASH_REDIS_REST_URL,
      token: config.UPSTASH_REDIS_REST_TOKEN,
      clock,
      log,
    });
  }
  const kv = kvHandleOf(store);
  // Only a store some test wrapped has no handle: jobs then answer 503, everything else works.
  if (!kv) return unavailableQueue("the store does not expose its Deno KV handle");
  return createKvQueue(kv, { log });
}

/** A queue that refuses work, naming why (submissions answer 503 upstream_unavailable). */
function unavailableQueue(reason: string): JobQueue {
  const refuse = () => {
    throw upstreamUnavailable(`Capture jobs are unavailable: ${reason}.`, {
      hint: "Send the captures to POST /api/screenshot, or ask the operator to check the store.",
    });
  };
  return {
    kind: "deno-kv",
    send: () => Promise.resolve().then(refuse),
    listen: () => {},
    close: () => Promise.resolve(),
  };
}
