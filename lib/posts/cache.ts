import { withTimeout } from "../timeout.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { PostLookup } from "./syndication.ts";

// A post changes slowly (edits, counters); minutes of staleness spare the upstream a hot post.
export const POST_TTL_MS = 5 * 60_000;
// Unknown or tombstoned posts may appear or come back: remember that only briefly.
export const NEGATIVE_TTL_MS = 60_000;
// A slow store must cost a lookup little: past these budgets the cache is skipped, as for captures.
const STORE_READ_MS = 1_000;
const STORE_WRITE_MS = 3_000;

/** Where an answer came from, for the access log: the store, the upstream, or a shared call. */
export type LookupSource = "hit" | "miss" | "coalesced";

export interface CachedLookup {
  lookup: PostLookup;
  source: LookupSource;
}

/** Store key of a post's cached answer. */
export function postKey(id: string): string[] {
  return ["post", id];
}

/**
 * Post lookups through the store. Identical concurrent lookups share one store read and one
 * upstream call (single flight); failures are shared but never cached.
 */
export function createPostCache({ store, log }: { store: Store; log: Logger }) {
  const inFlight = new Map<string, Promise<CachedLookup>>();

  async function resolve(
    id: string,
    fetchUpstream: () => Promise<PostLookup>,
  ): Promise<CachedLookup> {
    const read = withTimeout(store.getValue<PostLookup>(postKey(id)), STORE_READ_MS, "post read");
    const cached = await read.catch((error) => {
      // A store outage degrades to uncached lookups rather than failing the request.
      log.warn("post cache read failed", { id, error });
      return null;
    });
    if (cached) return { lookup: cached, source: "hit" };
    const lookup = await fetchUpstream();
    const ttl = lookup.kind === "found" ? POST_TTL_MS : NEGATIVE_TTL_MS;
    const write = withTimeout(
      store.setValue(postKey(id), lookup, ttl),
      STORE_WRITE_MS,
      "post write",
    );
    await write.catch((error) => {
      // e.g. a payload over the backend's value size limit: serve it, just do not cache it.
      log.warn("post cache write failed", { id, error });
    });
    return { lookup, source: "miss" };
  }

  return {
    /** The answer for `id`, from the store, a lookup already under way, or `fetchUpstream`. */
    lookup(id: string, fetchUpstream: () => Promise<PostLookup>): Promise<CachedLookup> {
      const running = inFlight.get(id);
      if (running) return running.then(({ lookup }) => ({ lookup, source: "coalesced" }));
      // Registered before the first await, so a lookup arriving next joins this one.
      const flight = resolve(id, fetchUpstream).finally(() => inFlight.delete(id));
      inFlight.set(id, flight);
      return flight;
    },
  };
}

export type PostCache = ReturnType<typeof createPostCache>;
