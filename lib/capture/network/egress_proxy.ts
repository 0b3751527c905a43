/**
 * The network boundary of captures: a small HTTP proxy on 127.0.0.1 that Chromium must use for
 * everything (CONNECT for https/wss, absolute-form requests for http). Each destination is
 * resolved here, every address judged, and the connection opened to the judged IP itself.
 * Each capture gets its own session (its own port), so refusals are attributed to it.
 */
import type { Logger } from "../../log.ts";
import {
  checkDestination,
  dialChecked,
  type EgressPolicy,
  type EgressRefusal,
} from "./egress_policy.ts";
import {
  closeDelimited,
  encodeHead,
  type Head,
  proxyResponse,
  pump,
  readHead,
  writeAll,
} from "./http_wire.ts";

export type { EgressRefusal } from "./egress_policy.ts";

/** Header the proxy puts on its own answers, so they are never taken for the target's. */
export const EGRESS_MARKER_HEADER = "x-shotline-egress";

// Chromium sends its request head at once; a connection idle this long is not Chromium's.
const HEAD_TIMEOUT_MS = 10_000;
// Request heads carry cookies at most; 64 KiB bounds what one connection can make us buffer.
const MAX_HEAD_BYTES = 64 * 1024;
// Chromium opens at most a few dozen proxy connections per page; this bounds file descriptors.
const MAX_CONNECTIONS_PER_SESSION = 256;

/** One capture's view of the proxy. */
export interface EgressSession {
  /** `http://127.0.0.1:<port>`: the proxy server to give the browser context. */
  readonly url: string;
  /** Destinations refused or unreachable, oldest first. */
  readonly refusals: readonly EgressRefusal[];
  /** Stops listening and cuts every connection of this session. */
  close(): void;
}

export interface EgressProxy {
  /** A fresh session with its own loopback port. */
  openSession(): EgressSession;
  /** Closes every session. */
  close(): void;
}

/** Starts nothing until a session is opened; every session enforces `policy`. */
export function createEgressProxy(policy: EgressPolicy, log: Logger): EgressProxy {
  const sessions = new Set<EgressSession>();
  return {
    openSession() {
      const session = openSession(policy, log, () => sessions.delete(session));
      sessions.add(session);
      return session;
    },
    close() {
      for (const session of [...sessions]) session.close();
    },
  };
}

function openSession(policy: EgressPolicy, log: Logger, onClose: () => void): EgressSession {
  // Loopback only: nothing off this machine can use the proxy.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const scope = createConnectionScope(policy, log, () => {
    closeQuietly(listener);
    onClose();
  });
  (async () => {
    try {
      for await (const conn of listener) scope.admit(conn);
    } catch (error) {
      if (!scope.closed) log.warn("egress listener stopped", { error });
    }
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    refusals: scope.refusals,
    close: () => scope.close(),
  };
}

/**
 * One capture's share of the proxy, whatever listener its connections arrive on: the policy
 * they are served under, the refusals recorded for it, and every connection cut when it closes.
 */
export interface ConnectionScope {
  readonly refusals: readonly EgressRefusal[];
  readonly closed: boolean;
  /** Serves one client connection; `head` when the caller has already read it. */
  admit(conn: Deno.Conn, head?: Head): void;
  /** Cuts every connection of the scope; later ones are closed on arrival. */
  close(): void;
}

/** A scope that enforces `policy`; `onClose` runs once, on the first close(). */
export function createConnectionScope(
  policy: EgressPolicy,
  log: Logger,
  onClose: () => void = () => {},
): ConnectionScope {
  const conns = new Set<Deno.Conn>();
  const refusals: EgressRefusal[] = [];
  let closed = false;
  const refuse = (refusal: EgressRefusal) => {
    refusals.push(refusal);
    log.debug("egress refused", { ...refusal });
  };
  const track = (conn: Deno.Conn) => {
    if (closed) return closeQuietly(conn);
    conns.add(conn);
  };
  return {
    refusals,
    get closed() {
      return closed;
    },
    admit(conn, head) {
      if (closed || conns.size >= MAX_CONNECTIONS_PER_SESSION) return closeQuietly(conn);
      track(conn);
      serve(conn, { policy, track, refuse, head }).catch((error) =>
        log.debug("egress connection failed", { error })
      ).finally(() => {
        closeQuietly(conn);
        conns.delete(conn);
      });
    },
    close() {
      if (closed) return;
      closed = true;
      for (const conn of conns) closeQuietly(conn);
      conns.clear();
      onClose();
    },
  };
}

/** Reads a request head within the time and size bounds Chromium always keeps; null otherwise. */
export async function readRequestHead(client: Deno.Conn): Promise<Head | null> {
  const timer = setTimeout(() => closeQuietly(client), HEAD_TIMEOUT_MS);
  try {
    return await readHead(client, MAX_HEAD_BYTES);
  } catch {
    return null; // Closed by the timer, or reset by the peer.
  } finally {
    clearTimeout(timer);
  }
}

async function serve(
  client: Deno.Conn,
  options: {
    policy: EgressPolicy;
    track: (conn: Deno.Conn) => void;
    refuse: (refusal: EgressRefusal) => void;
    head?: Head;
  },
): Promise<void> {
  const { policy, track, refuse } = options;
  const head = options.head ?? await readRequestHead(client);
  if (!head) return;
  const [method, target] = head.startLine.split(" ");
  const destination = method === "CONNECT" ? parseAuthority(target) : parseAbsolute(target);
  if (!destination) {
    await writeAll(client, proxyResponse(400, "Bad Request", "bad_request"));
    return;
  }
  const { host, port } = destination;
  const checked = await checkDestination(host, port, policy);
  const dialed = checked.ok
    ? await dialChecked(host, port, checked.addresses, policy)
    : { ok: false as const, refusal: checked.refusal };
  if (!dialed.ok) {
    refuse(dialed.refusal);
    const forbidden = dialed.refusal.kind !== "connect_failed";
    const status = forbidden ? [403, "Forbidden"] as const : [502, "Bad Gateway"] as const;
    await writeAll(client, proxyResponse(status[0], status[1], dialed.refusal.kind));
    return;
  }
  const upstream = dialed.conn;
  track(upstream);
  try {
    if (method === "CONNECT") {
      await writeAll(client, encodeHead("HTTP/1.1 200 Connection Established", []));
      await writeAll(upstream, head.rest);
      await Promise.race([pump(client, upstream), pump(upstream, client)]);
    } else {
      await forwardHttp(client, upstream, head, method, destination.path);
    }
  } finally {
    closeQuietly(upstream);
  }
}

/** Plain http: one request per upstream connection, so every request is resolved and checked. */
async function forwardHttp(
  client: Deno.Conn,
  upstream: Deno.Conn,
  head: Head,
  method: string,
  path: string,
): Promise<void> {
  const version = head.startLine.split(" ")[2] ?? "HTTP/1.1";
  await writeAll(
    upstream,
    encodeHead(`${method} ${path} ${version}`, closeDelimited(head.headers)),
  );
  await writeAll(upstream, head.rest);
  const requestBody = pump(client, upstream);
  let response = await readHead(upstream, MAX_HEAD_BYTES);
  // Interim answers (100 Continue, 103 Early Hints) pass through unchanged.
  while (response && /^HTTP\/1\.[01] 1(?!01)\d\d/.test(response.startLine)) {
    await writeAll(client, encodeHead(response.startLine, response.headers));
    response = await readHead(upstream, MAX_HEAD_BYTES, response.rest);
  }
  if (!response) return;
  // "Connection: close" to Chromium too: it must not send a second request down this tunnel,
  // which would reach the first request's host without a check of its own.
  await writeAll(client, encodeHead(response.startLine, closeDelimited(response.headers)));
  await writeAll(client, response.rest);
  await Promise.race([requestBody, pump(upstream, client)]);
}

function parseAuthority(
  target: string | undefined,
): { host: string; port: number; path: "" } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/\[\]@]+):(\d{1,5})$/.exec(target ?? "");
  if (!match) return null;
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { host: match[1].toLowerCase(), port, path: "" } : null;
}

function parseAbsolute(target: string | undefined) {
  if (!target?.startsWith("http://")) return null;
  try {
    const url = new URL(target);
    if (url.username || url.password || !url.hostname) return null;
    return { host: url.hostname, port: Number(url.port || 80), path: url.pathname + url.search };
  } catch {
    return null;
  }
}

/** Closes a listener or connection that may already be closed. */
export function closeQuietly(closable: { close(): void }): void {
  try {
    closable.close();
  } catch {
    // Already closed.
  }
}
