/**
 * Client of the public syndication interface, making the same request as `react-tweet`'s server
 * `api` entry (`fetchTweet`): `GET /tweet-result?id&lang=en&features&token`.
 *
 * Why not `npm:react-tweet/api` itself: it imports and runs under Deno (tests/post_syndication
 * _test.ts drives it to prove our request is identical), but (1) it reports a tombstone only as
 * `{ tombstone: true }`, while we must say whether the post is private, deleted or withheld;
 * (2) it calls the global `fetch` with a hard-coded origin, so neither `deps.fetch` nor a loopback
 * upstream can be injected; (3) a non-JSON error body makes it throw a TypeError, and its error
 * messages embed the upstream URL. The request itself (URL, features, token) is unchanged.
 */
import { readCapped } from "../bytes.ts";
import { abortAfter } from "../timeout.ts";

/** The `features` flags react-tweet sends; the interface shapes its payload by them. */
export const SYNDICATION_FEATURES = [
  "tfw_timeline_list:",
  "tfw_follower_count_sunset:true",
  "tfw_tweet_edit_backend:on",
  "tfw_refsrc_session:on",
  "tfw_fosnr_soft_interventions_enabled:on",
  "tfw_show_birdwatch_pivots_enabled:on",
  "tfw_show_business_verified_badge:on",
  "tfw_duplicate_scribes_to_settings:on",
  "tfw_use_profile_image_shape_enabled:on",
  "tfw_show_blue_verified_badge:on",
  "tfw_legacy_timeline_sunset:true",
  "tfw_show_gov_verified_badge:on",
  "tfw_show_business_affiliate_badge:on",
  "tfw_tweet_edit_frontend:on",
].join(";");

// A post payload is a few KB; anything far larger is not a post and must not fill memory.
const MAX_PAYLOAD_BYTES = 1024 * 1024;

/** Why a tombstoned post is unavailable, as far as the upstream's text tells. */
export const TOMBSTONE_REASONS = [
  "private",
  "deleted",
  "withheld",
  "suspended",
  "unavailable",
] as const;

export type TombstoneReason = typeof TOMBSTONE_REASONS[number];

/** What the upstream said about a post; failures are thrown as PostFailure instead. */
export type PostLookup =
  | { kind: "found"; data: Record<string, unknown> }
  | { kind: "not_found" }
  | { kind: "tombstone"; reason: TombstoneReason };

/** The token the interface expects for `id`: react-tweet's derivation (id / 1e15 * pi, base 36). */
export function syndicationToken(id: string): string {
  return ((Number(id) / 1e15) * Math.PI).toString(36).replace(/(0+|\.)/g, "");
}

/** The tweet-result URL for `id` on `origin` (the real CDN, or a loopback server in tests). */
export function syndicationUrl(origin: string, id: string): URL {
  const url = new URL("/tweet-result", origin);
  url.searchParams.set("id", id);
  url.searchParams.set("lang", "en");
  url.searchParams.set("features", SYNDICATION_FEATURES);
  url.searchParams.set("token", syndicationToken(id));
  return url;
}

export interface FetchPostOptions {
  /** Deno's fetch in production; bound to a loopback server in tests. */
  fetch: typeof fetch;
  /** Origin of the syndication interface. */
  origin: string;
  /** Numeric post id, leading zeros dropped. */
  id: string;
  /** Whole budget of the lookup, headers and body. */
  timeoutMs: number;
}

/** Fetches one post: found, unknown or tombstoned; throws PostFailure when it cannot tell. */
export async function fetchPost(
  { fetch: fetchFn, origin, id, timeoutMs }: FetchPostOptions,
): Promise<PostLookup> {
  const timeout = new Error("syndication timeout");
  // Bounded so a hanging upstream cannot hold the editor (or coalesced callers) indefinitely.
  using deadline = abortAfter(timeoutMs, timeout);
  try {
    const res = await fetchFn(syndicationUrl(origin, id), {
      signal: deadline.signal,
      headers: { Accept: "application/json" },
    });
    if (res.status === 404) {
      await res.body?.cancel();
      return { kind: "not_found" };
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw postUnfetchable(`The syndication service answered HTTP ${res.status}; retry later.`);
    }
    if (!res.headers.get("content-type")?.includes("application/json")) {
      await res.body?.cancel();
      throw postUnfetchable("The syndication service answered with something other than JSON.");
    }
    return classify(parseJson(await readBody(res)));
  } catch (error) {
    if (error instanceof PostFailure) throw error;
    if (deadline.signal.reason === timeout) throw new PostFailure({ kind: "timeout", timeoutMs });
    throw postUnfetchable("The syndication service could not be reached; retry later.");
  }
}

/**
 * Why a post could not be looked up, in the upstream's terms; the route (routes/post.ts) gives
 * each kind its status, code and hint.
 */
export type PostFailureDetail =
  /** The interface answered with something unusable, or not at all; `reason` says which. */
  | { kind: "unfetchable"; reason: string }
  /** No complete answer within the lookup's budget. */
  | { kind: "timeout"; timeoutMs: number };

export class PostFailure extends Error {
  constructor(readonly detail: PostFailureDetail) {
    super(`post failure: ${detail.kind}`);
    this.name = "PostFailure";
  }
}

function postUnfetchable(reason: string): PostFailure {
  return new PostFailure({ kind: "unfetchable", reason });
}

async function readBody(res: Response): Promise<string> {
  if (!res.body) return "";
  const bytes = await readCapped(res.body, MAX_PAYLOAD_BYTES);
  if (!bytes) throw postUnfetchable("The syndication service sent an oversized answer.");
  return new TextDecoder().decode(bytes);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw postUnfetchable("The syndication service sent malformed JSON.");
  }
}

function classify(payload: unknown): PostLookup {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw postUnfetchable("The syndication service sent an answer that is not a post.");
  }
  const data = payload as Record<string, unknown>;
  // react-tweet's rule: an empty object means the post does not exist.
  if (Object.keys(data).length === 0) return { kind: "not_found" };
  if (data.__typename === "TweetTombstone" || data.__typename === "TweetUnavailable") {
    return { kind: "tombstone", reason: tombstoneReason(data) };
  }
  return { kind: "found", data };
}

/** The tombstone's English text (we ask for lang=en) says why the post is gone. */
function tombstoneReason(data: Record<string, unknown>): TombstoneReason {
  const tombstone = data.tombstone as { text?: { text?: unknown } } | undefined;
  const raw = tombstone?.text?.text ?? data.reason;
  const text = typeof raw === "string" ? raw.toLowerCase() : "";
  if (text.includes("withheld")) return "withheld";
  if (text.includes("suspended")) return "suspended";
  if (text.includes("deleted") || text.includes("no longer exists")) return "deleted";
  if (text.includes("limits who can view") || /protected|private/.test(text)) return "private";
  return "unavailable";
}

/** A hint naming why a tombstoned post cannot be shown. */
export function tombstoneHint(reason: TombstoneReason): string {
  switch (reason) {
    case "private":
      return "The post is private: its author limits who can view their posts.";
    case "deleted":
      return "The post was deleted, or its account no longer exists.";
    case "withheld":
      return "The post is withheld in the service's country in response to a legal demand.";
    case "suspended":
      return "The post belongs to a suspended account.";
    case "unavailable":
      return "The post is private, deleted or withheld; the upstream did not say which.";
  }
}
