import { MediaFailure } from "./failure.ts";
import { METRICS } from "../telemetry/metrics.ts";
import type { Logger } from "../log.ts";
import { abortAfter } from "../timeout.ts";
import { allowedMediaHost, isServableMediaType } from "./allowlist.ts";
import { guardedBody } from "./guarded_stream.ts";
import type { MediaHost, Upstreams } from "../upstreams.ts";

// Media hosts redirect at most once or twice (CDN moves); a longer chain is a loop or a trick.
export const MAX_REDIRECTS = 3;

/** Client headers worth forwarding: ranges and revalidation. Cookies, referrer etc. never go. */
const FORWARDED_REQUEST_HEADERS = ["range", "if-range", "if-none-match", "if-modified-since"];

/** Upstream headers passed back; anything else (Set-Cookie above all) is dropped. */
const PASSED_RESPONSE_HEADERS = [
  "content-type",
  "content-length",
  "content-range",
  "accept-ranges",
  "etag",
  "last-modified",
];

/** Sent with every proxied body: inert, embeddable anywhere, readable by canvases, cacheable. */
export const MEDIA_SECURITY_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  // Even if something active slipped through, opened directly it could run nothing.
  "Content-Security-Policy": "default-src 'none'; sandbox",
  "Cross-Origin-Resource-Policy": "cross-origin",
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "Content-Range, Accept-Ranges, ETag, Last-Modified",
  "Cache-Control": "public, max-age=86400, immutable",
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface MediaProxyDeps {
  fetch: typeof fetch;
  upstreams: Upstreams;
  log: Logger;
}

export interface MediaRequest {
  /** The client's URL, already checked by parseMediaUrl. */
  url: URL;
  host: MediaHost;
  method: "GET" | "HEAD";
  headers: Headers;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /**
   * Settles once Deno has sent the response or given up on it (Deno.serve's `completed`).
   * Without it the body always takes the guarded path: a direct stream must be counted out.
   */
  completed?: Promise<void>;
  /** Receives `mediaPath` ("direct" or "guarded") for the access log. */
  logFields?: Record<string, unknown>;
}

// Direct (zero-copy) streams in flight in this process, bounded by Upstreams.mediaDirectStreams.
let directStreams = 0;

/** Streams an allowlisted media file back: manual redirects, filters, caps and timeouts. */
export async function proxyMedia(deps: MediaProxyDeps, req: MediaRequest): Promise<Response> {
  const { upstreams } = deps;
  const upstream = new AbortController();
  const headerTimeout = new Error("media header timeout");
  const clientGone = new Error("client disconnected");
  const onClientGone = () => upstream.abort(clientGone);
  // The client leaving aborts the upstream fetch, whether we are still waiting for headers or
  // streaming (then the body cancel propagates too).
  req.signal.addEventListener("abort", onClientGone, { once: true });
  if (req.signal.aborted) onClientGone();
  // Bounded wait for headers across all redirect hops; the body has its own idle timeout.
  const headerDeadline = abortAfter(upstreams.mediaHeaderTimeoutMs, headerTimeout);
  const signal = AbortSignal.any([upstream.signal, headerDeadline.signal]);

  let res: Response;
  let host: MediaHost;
  try {
    ({ res, host } = await fetchFollowingRedirects(deps, req, signal));
  } catch (error) {
    if (error instanceof MediaFailure) throw error;
    if (signal.reason === headerTimeout) {
      throw new MediaFailure({ kind: "timeout", ms: upstreams.mediaHeaderTimeoutMs });
    }
    if (signal.reason !== clientGone) {
      deps.log.warn("media fetch failed", { host: req.host, error });
    }
    throw new MediaFailure({ kind: "unreachable" });
  } finally {
    headerDeadline.clear();
  }

  if (res.status !== 200 && res.status !== 206 && res.status !== 304) {
    await res.body?.cancel();
    throw refused(`The media host answered HTTP ${res.status}.`);
  }
  const headers = new Headers(MEDIA_SECURITY_HEADERS);
  for (const name of PASSED_RESPONSE_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (res.status === 304) {
    await res.body?.cancel();
    return new Response(null, { status: 304, headers });
  }
  if (!isServableMediaType(res.headers.get("content-type"), host)) {
    await res.body?.cancel();
    throw refused("The upstream file is not an image, video or audio file the proxy serves.");
  }
  const length = res.headers.get("content-length");
  const declared = length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
  if (declared !== undefined && declared > upstreams.mediaMaxBytes) {
    await res.body?.cancel();
    throw refused(`The file is larger than the proxy's ${upstreams.mediaMaxBytes}-byte limit.`);
  }
  if (req.method === "HEAD" || !res.body) {
    // Hono answers HEAD by dropping our body without cancelling it: never hand it one.
    await res.body?.cancel();
    return new Response(null, { status: res.status, headers });
  }
  if (declared !== undefined && req.completed && directStreams < upstreams.mediaDirectStreams) {
    // Zero-copy: Deno copies the upstream body to the client itself, no JS per chunk. The
    // declared length is the byte cap (both sides frame by it); the header deadline was the
    // fetch's AbortSignal. Deno cannot cut a body it copies (aborting the fetch no longer
    // reaches it), so there is no idle timeout here: a stalled stream holds its two sockets
    // until a side closes, and at most mediaDirectStreams of them exist before the guard is back.
    directStreams++;
    // Sent in full: the declared length is what went out.
    req.completed.then(() => METRICS.proxyBytes.inc(declared), () => {}).finally(() =>
      directStreams--
    );
    req.signal.removeEventListener("abort", onClientGone);
    if (req.logFields) req.logFields.mediaPath = "direct";
    return new Response(res.body, { status: res.status, headers });
  }
  if (req.logFields) req.logFields.mediaPath = "guarded";
  const body = guardedBody(res.body, {
    maxBytes: upstreams.mediaMaxBytes,
    idleMs: upstreams.mediaIdleTimeoutMs,
    declaredLength: declared,
    clientSignal: req.signal,
    onTrip: (error) => {
      deps.log.warn("media stream cut", { host, reason: error.reason, message: error.message });
      upstream.abort(error);
    },
  });
  return new Response(body, { status: res.status, headers });
}

/** The media host answered, but not with something we may pass on. */
function refused(reason: string): MediaFailure {
  return new MediaFailure({ kind: "refused", reason });
}

async function fetchFollowingRedirects(
  deps: MediaProxyDeps,
  req: MediaRequest,
  signal: AbortSignal,
): Promise<{ res: Response; host: MediaHost }> {
  const headers = new Headers({
    // Deno's fetch would otherwise ask for gzip and decode it, breaking ranges and lengths.
    "Accept-Encoding": "identity",
  });
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  let url = req.url;
  let host = req.host;
  for (let hop = 0;; hop++) {
    const res = await deps.fetch(upstreamUrl(deps.upstreams, url, host), {
      method: req.method,
      headers,
      redirect: "manual",
      signal,
    });
    if (!REDIRECT_STATUSES.has(res.status)) return { res, host };
    await res.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw refused(`More than ${MAX_REDIRECTS} redirects.`);
    const location = res.headers.get("location");
    if (!location) throw refused("The media host redirected without a Location.");
    // Relative locations resolve against the original-space URL, never the rewritten one.
    const next = URL.parse(location, url);
    const nextHost = next && allowedMediaHost(next);
    // Every hop passes the same allowlist as the client's URL, before anything is rewritten.
    if (!next || !nextHost) throw refused("The media host redirected outside the allowlist.");
    url = next;
    host = nextHost;
  }
}

/** The URL actually fetched: the host's configured origin plus the path and query (no hash). */
function upstreamUrl(upstreams: Upstreams, url: URL, host: MediaHost): string {
  // String concatenation, not `new URL(path, origin)`: a path like "//evil.test/x" must stay a path.
  return upstreams.mediaOrigin(host).replace(/\/+$/, "") + url.pathname + url.search;
}
