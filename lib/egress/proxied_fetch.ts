/**
 * The one way the service itself fetches a URL a page named (its favicon today; a webhook or an
 * og image later): HTTP/1.1 spoken here over a TCP connection to the capture's egress proxy
 * session, so the proxy judges the destination, connects by checked address, counts the bytes in
 * the capture's budget and cuts them when the capture ends, exactly as for the browser's own
 * requests. Where the connection goes is decided here (the session's address), never by the
 * environment: no HTTP client that reads HTTP_PROXY, HTTPS_PROXY or NO_PROXY is involved (Deno's
 * fetch, even with an explicit proxy, still sends NO_PROXY's hosts around it). http is an
 * absolute-form request (GET, or a webhook's POST) to the proxy; https is CONNECT, then TLS with
 * the target's name. Every redirect hop a GET follows is a new request through the proxy; a POST
 * follows none. Bounded in bytes and time.
 */
import { unbracket } from "./address.ts";
import { headerOf, readBody, readBodyPrefix } from "./http_body.ts";
import { encodeHead, type Head, readHead, writeAll } from "./http_wire.ts";
import { closeQuietly } from "./proxy.ts";
import type { ProxyCredentials } from "./proxy_auth.ts";
import { EGRESS_MARKER_HEADER } from "./types.ts";

/** Which egress proxy session carries a load: a loopback session, or the fleet listener's. */
export interface EgressRoute {
  proxyUrl: string;
  /** The capture's credentials where the listener asks for them (the fleet's). */
  credentials?: ProxyCredentials;
}

/** One request through the proxy: GET, or a POST with its body (a webhook). */
export interface ProxiedRequest {
  route: EgressRoute;
  /** GET unless said; POST carries `body`. */
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Past this many body bytes the rest is not read and the connection is closed. */
  maxBytes: number;
  /** "refuse" (default): a body over `maxBytes` is a failure; "cut": its first bytes are kept. */
  overflow?: "refuse" | "cut";
  /** Which statuses' bodies are read; the others are left unread. Default: every status. */
  readsBodyOf?: (status: number) => boolean;
  signal: AbortSignal;
  /** Test seam: roots trusted for https targets besides the built-in ones. */
  caCerts?: string[];
}

/** The service's GET of a page-supplied URL (its favicon). */
export type ProxiedGet = Omit<ProxiedRequest, "method" | "body" | "overflow" | "readsBodyOf">;

/** What came back: a 2xx's body, or why there is none. */
export type ProxiedAnswer =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: string };

/** One exchange's answer, whatever its status, or why there is none. */
export type ProxiedResponse =
  | {
    ok: true;
    status: number;
    headers: [string, string][];
    bytes: Uint8Array;
    /** True when the body went past `maxBytes` and only its first bytes were kept. */
    cut: boolean;
  }
  /** `refused`: the boundary would not connect the destination (the reason stays in the proxy). */
  | { ok: false; reason: string; refused: boolean };

// A favicon behind more hops than this is not worth following.
const MAX_REDIRECTS = 5;
// Response heads carry a few headers; 64 KiB bounds what a host can make us buffer.
const MAX_HEAD_BYTES = 64 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Headers the exchange sets itself; a caller's would confuse the proxy or the framing.
const OWN_HEADERS = new Set([
  "host",
  "connection",
  "proxy-authorization",
  "proxy-connection",
  "content-length",
  "transfer-encoding",
  "accept-encoding",
  "te",
  "upgrade",
]);

const isSuccess = (status: number) => status >= 200 && status < 300;

/** GETs `url` through the route's proxy, following redirects; never throws, only says why. */
export async function getThroughProxy(url: string, request: ProxiedGet): Promise<ProxiedAnswer> {
  let target = parseTarget(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (!target) return failed(hop === 0 ? "not an http(s) URL" : "redirect off the web");
    // Each hop is a request of its own through the proxy, so it is judged again.
    const answer = await sendThroughProxy(target.href, { ...request, readsBodyOf: isSuccess });
    if (!answer.ok) return { ok: false, reason: answer.reason };
    const location = headerOf(answer.headers, "location");
    if (REDIRECTS.has(answer.status) && location) {
      target = parseTarget(location, target);
      continue;
    }
    if (!isSuccess(answer.status)) return failed(`status ${answer.status}`);
    return { ok: true, bytes: answer.bytes };
  }
  return failed("too many redirects");
}

/**
 * Sends one request to `url` through the route's proxy and answers its response as it is: a
 * redirect is not followed. Never throws for a network failure, only says why.
 */
export async function sendThroughProxy(
  url: string,
  request: ProxiedRequest,
): Promise<ProxiedResponse> {
  const proxy = proxyAddress(request.route.proxyUrl);
  if (!proxy) return notSent("no usable egress route");
  const headers = requestHeaders(request.headers);
  if (!headers) return notSent("a header value the wire cannot carry");
  const target = parseTarget(url);
  if (!target) return notSent("not an http(s) URL");
  try {
    return await untilAborted(exchange({ target, proxy, headers, request }), request.signal);
  } catch (error) {
    return notSent(error instanceof Error ? error.message : String(error));
  }
}

interface Exchange {
  target: URL;
  proxy: { hostname: string; port: number };
  headers: [string, string][];
  request: ProxiedRequest;
}

/** One request on a connection of its own to the proxy (Connection: close both ways). */
async function exchange({ target, proxy, headers, request }: Exchange): Promise<ProxiedResponse> {
  const { signal, route, method = "GET", body } = request;
  let conn: Deno.Conn = await Deno.connect({ ...proxy, signal });
  const cut = () => closeQuietly(conn);
  signal.addEventListener("abort", cut, { once: true });
  try {
    const auth = proxyAuthorization(route.credentials);
    const port = target.port || (target.protocol === "https:" ? "443" : "80");
    const authority = `${target.hostname}:${port}`;
    let requestTarget = target.origin + target.pathname + target.search;
    if (target.protocol === "https:") {
      await writeAll(
        conn,
        encodeHead(`CONNECT ${authority} HTTP/1.1`, [["Host", authority], ...auth]),
      );
      const tunnel = await readHead(conn, MAX_HEAD_BYTES);
      if (!tunnel) return notSent("the egress proxy closed the connection");
      if (statusOf(tunnel) !== 200 || tunnel.rest.length > 0) return refusalOf(tunnel);
      // The certificate is checked against the name the page gave, as a browser would.
      conn = await Deno.startTls(conn as Deno.TcpConn, {
        hostname: unbracket(target.hostname),
        ...(request.caCerts ? { caCerts: request.caCerts } : {}),
      });
      requestTarget = target.pathname + target.search;
    }
    const lines: [string, string][] = [
      ["Host", target.host],
      ...(target.protocol === "http:" ? auth : []),
      ...headers,
      ...(body ? [["Content-Length", String(body.length)] as [string, string]] : []),
      ["Connection", "close"],
    ];
    await writeAll(conn, encodeHead(`${method} ${requestTarget} HTTP/1.1`, lines));
    if (body) await writeAll(conn, body);
    let head = await readHead(conn, MAX_HEAD_BYTES);
    // Interim answers (100 Continue, 103 Early Hints) precede the real one.
    while (head && /^HTTP\/1\.[01] 1\d\d/.test(head.startLine)) {
      head = await readHead(conn, MAX_HEAD_BYTES, head.rest);
    }
    if (!head) return notSent("no answer");
    const status = statusOf(head);
    if (headerOf(head.headers, EGRESS_MARKER_HEADER)) return refusalOf(head);
    const answer = { ok: true as const, status, headers: head.headers };
    // No body follows these, whatever the headers say; a caller may not want others read.
    const bodiless = status === 204 || status === 205 || status === 304;
    if (bodiless || !(request.readsBodyOf?.(status) ?? true)) {
      return { ...answer, bytes: new Uint8Array(0), cut: false };
    }
    if (request.overflow === "cut") {
      // The status is the answer here; a body that cannot be read is kept as none.
      const kept = await readBodyPrefix(conn, head, request.maxBytes)
        .catch(() => ({ bytes: new Uint8Array(0), cut: true }));
      return { ...answer, ...kept };
    }
    const bytes = await readBody(conn, head, request.maxBytes);
    return bytes
      ? { ...answer, bytes, cut: false }
      : notSent(`larger than ${request.maxBytes} bytes`);
  } finally {
    signal.removeEventListener("abort", cut);
    closeQuietly(conn);
  }
}

/** The proxy's own answer (a refusal, a 407), said without its address or reason. */
function refusalOf(head: Head): ProxiedResponse {
  const marker = headerOf(head.headers, EGRESS_MARKER_HEADER);
  if (marker === "refused") return { ok: false, reason: "refused by the boundary", refused: true };
  return notSent(`egress proxy answered ${statusOf(head)}${marker ? ` (${marker})` : ""}`);
}

/** An http(s) URL without userinfo, resolved against `base`; null otherwise. */
function parseTarget(location: string, base?: URL): URL | null {
  try {
    const url = new URL(location, base);
    if (!/^https?:$/.test(url.protocol) || url.username || url.password) return null;
    return url;
  } catch {
    return null;
  }
}

/** Host and port of an `http://host:port` proxy URL; null for anything else. */
function proxyAddress(proxyUrl: string): { hostname: string; port: number } | null {
  try {
    const url = new URL(proxyUrl);
    if (url.protocol !== "http:" || !url.hostname) return null;
    return { hostname: unbracket(url.hostname), port: Number(url.port || 80) };
  } catch {
    return null;
  }
}

/** The caller's headers minus those the exchange owns; null when a value holds CR, LF or NUL. */
function requestHeaders(given: Record<string, string>): [string, string][] | null {
  const headers = Object.entries(given).filter(([name]) => !OWN_HEADERS.has(name.toLowerCase()));
  // A line break in a value (a client's user agent, say) would start a header of its own.
  const unsafe = headers.some(([name, value]) =>
    /[\r\n\0]/.test(value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)
  );
  return unsafe ? null : headers;
}

function proxyAuthorization(credentials?: ProxyCredentials): [string, string][] {
  if (!credentials) return [];
  return [[
    "Proxy-Authorization",
    `Basic ${btoa(`${credentials.username}:${credentials.password}`)}`,
  ]];
}

function statusOf(head: Head): number {
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.startLine)?.[1] ?? 0);
}

/** `work`, or a rejection with the signal's reason as soon as it aborts (a TLS handshake ignores it). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  work.catch(() => {}); // the late failure of abandoned work is nobody's
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

const failed = (reason: string): ProxiedAnswer => ({ ok: false, reason });
const notSent = (reason: string): ProxiedResponse => ({ ok: false, reason, refused: false });
