/** The media hosts the proxy may fetch from: images, assets, uploads, video. */
export const MEDIA_HOSTS = [
  "pbs.twimg.com",
  "abs.twimg.com",
  "ton.twimg.com",
  "video.twimg.com",
] as const;

export type MediaHost = typeof MEDIA_HOSTS[number];

/** The hosts as prose ("a, b, c or d"), so descriptions and hints never restate the list. */
export function mediaHostList(conjunction: "or" | "and"): string {
  return `${MEDIA_HOSTS.slice(0, -1).join(", ")} ${conjunction} ${MEDIA_HOSTS.at(-1)}`;
}

/**
 * Where outbound requests go, and the budgets that bound them. Production uses the real hosts
 * through Deno's fetch (so HTTPS_PROXY / DENO_CERT apply); tests point the origins at loopback
 * servers. The allowlist is always checked on the client's original URL, never on these origins.
 */
export interface Upstreams {
  /** Origin of the public syndication interface (`/tweet-result` is appended). */
  syndicationOrigin: string;
  /** Origin a request for an allowlisted host is sent to (path and query are kept). */
  mediaOrigin(host: MediaHost): string;
  /** Whole budget of one post lookup, headers and body. */
  postTimeoutMs: number;
  /** Budget until the media host's response headers arrive, redirects included. */
  mediaHeaderTimeoutMs: number;
  /** Longest pause allowed between two body chunks of a media response. */
  mediaIdleTimeoutMs: number;
  /** Most bytes one media response may carry. */
  mediaMaxBytes: number;
  /**
   * Media bodies handed to Deno untouched at once (zero-copy); further ones take the guarded
   * path. Deno cannot cut a body it copies itself, so this bounds what stalled streams can hold.
   */
  mediaDirectStreams: number;
}

export const DEFAULT_UPSTREAMS: Upstreams = {
  syndicationOrigin: "https://cdn.syndication.twimg.com",
  mediaOrigin: (host) => `https://${host}`,
  // The editor waits on this call; the syndication CDN answers in well under a second.
  postTimeoutMs: 5_000,
  // A media host that has not answered in 10 s is down for our purposes.
  mediaHeaderTimeoutMs: 10_000,
  // A body stalled for 20 s (upstream silent or client not reading) holds sockets for nothing.
  mediaIdleTimeoutMs: 20_000,
  // Posted videos stay under 512 MB; a cap keeps one request from streaming forever.
  mediaMaxBytes: 512 * 1024 * 1024,
  // Each held stream costs two sockets and no JS memory; past this the idle timeout applies again.
  mediaDirectStreams: 64,
};
