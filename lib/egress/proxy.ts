/**
 * The network boundary of captures: a small HTTP proxy on 127.0.0.1 that Chromium must use for
 * everything (CONNECT for https/wss, absolute-form requests for http). Each destination is
 * resolved here, every address judged, and the connection opened to the judged IP itself.
 * Each capture gets its own session (its own port), so refusals are attributed to it.
 */
import type { Logger } from "../log.ts";
import { checkDestination, dialChecked, type EgressPolicy } from "./policy.ts";
import type { EgressRefusal } from "./types.ts";
import {
  closeDelimited,
  encodeHead,
  type Head,
  parseAbsolute,
  parseAuthority,
  proxyResponse,
  pump,
  readHead,
  writeAll,
} from "./http_wire.ts";
import { METRICS } from "../telemetry/metrics.ts";

const REFUSED = proxyResponse(403, "Forbidden", "refused");

// Chromium sends its request head at once; a connection idle this long is not Chromium's.
const HEAD_TIMEOUT_MS = 10_000;
// Request heads carry cookies at most; 64 KiB bounds what one connection can make us buffer.
const MAX_HEAD_BYTES = 64 * 1024;
// Chromium opens at most a few dozen proxy connections per page; this bounds file descriptors.
export const MAX_CONNECTIONS_PER_SESSION = 256;

/** What one session (one capture) may use. */
export interface EgressLimits {
  /** Bytes from the targets to the browser; past it every connection of the session is cut. */
  byteBudget?: number;
  /** Connections open at once; further ones are closed on arrival. */
  maxConnections?: number;
  /** False keeps refusals out of the egress metric (the self-test's refusals are deliberate). */
  counted?: boolean;
}

/** One capture's view of the proxy. */
export interface EgressSession {
  /** `http://127.0.0.1:<port>`: the proxy server to give the browser context. */
  readonly url: string;
  /** Destinations refused or unreachable, oldest first. */
  readonly refusals: readonly EgressRefusal[];
  /** Bytes received from targets so far. */
  readonly bytesIn: number;
  /** True once the byte budget ran out (the page was cut off there). */
  readonly overBudget: boolean;
  /** Stops listening and cuts every connection of this session. */
  close(): void;
}

export interface EgressProxy {
  /** A fresh session with its own loopback port. */
  openSession(): EgressSession;
  /** Closes every session. */
  close(): void;
}

/** Starts nothing until a session is opened; every session enforces `policy` and `limits`. */
export function createEgressProxy(
  policy: EgressPolicy,
  log: Logger,
  limits: EgressLimits = {},
): EgressProxy {
  const sessions = new Set<EgressSession>();
  return {
    openSession() {
      const session = openSession({ policy, log, limits, onClose: () => sessions.delete(session) });
      sessions.add(session);
      return session;
    },
    close() {
      for (const session of [...sessions]) session.close();
    },
  };
}

/** The side of a session that `serve` works with. */
interface SessionHooks {
  track(conn: Deno.Conn): void;
  refuse(refusal: EgressRefusal): void;
  /** Counts bytes from a target; false once the budget is spent (the caller stops). */
  received(bytes: number): boolean;
}

/** Where a scope's connections are served, and what it may use. */
export interface ScopeOptions {
  policy: EgressPolicy;
  log: Logger;
  limits?: EgressLimits;
  /** Runs once, on the first close(). */
  onClose?: () => void;
}

function openSession(options: ScopeOptions): EgressSession {
  // Loopback only: nothing off this machine can use the proxy.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const scope = createConnectionScope({
    ...options,
    onClose: () => {
      closeQuietly(listener);
      options.onClose?.();
    },
  });
  (async () => {
    try {
      for await (const conn of listener) scope.admit(conn);
    } catch (error) {
      if (!scope.closed) options.log.warn("egress listener stopped", { error });
    }
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    refusals: scope.refusals,
    get bytesIn() {
      return scope.bytesIn;
    },
    get overBudget() {
      return scope.overBudget;
    },
    close: () => scope.close(),
  };
}

/**
 * One capture's share of the proxy, whatever listener its connections arrive on (its own
 * loopback port, or the fleet listener after authentication): the policy and budgets they are
 * served under, the refusals recorded for it, and every connection cut when it closes.
 */
export interface ConnectionScope {
  readonly refusals: readonly EgressRefusal[];
  readonly closed: boolean;
  /** Bytes received from targets so far. */
  readonly bytesIn: number;
  /** True once the byte budget ran out (the page was cut off there). */
  readonly overBudget: boolean;
  /** Serves one client connection; `head` when the caller has already read it. */
  admit(conn: Deno.Conn, head?: Head): void;
  /** Cuts every connection of the scope; later ones are closed on arrival. */
  close(): void;
}

/** A scope that enforces `policy` and `limits`. */
export function createConnectionScope(options: ScopeOptions): ConnectionScope {
  const { policy, log, limits = {} } = options;
  const maxConnections = limits.maxConnections ?? MAX_CONNECTIONS_PER_SESSION;
  const byteBudget = limits.byteBudget ?? Infinity;
  const conns = new Set<Deno.Conn>();
  const refusals: EgressRefusal[] = [];
  let closed = false;
  let bytesIn = 0;
  let overBudget = false;
  const cutAll = () => {
    for (const conn of conns) closeQuietly(conn);
    conns.clear();
  };
  const hooks: SessionHooks = {
    refuse(refusal) {
      refusals.push(refusal);
      if (limits.counted !== false) METRICS.egressRefusals.inc({ reason: refusal.kind });
      // Only here is the reason recorded: the browser's answer is the same for every refusal.
      log.debug("egress refused", { ...refusal });
    },
    track(conn) {
      if (closed || overBudget) return closeQuietly(conn);
      conns.add(conn);
    },
    received(bytes) {
      bytesIn += bytes;
      if (bytesIn <= byteBudget) return true;
      if (!overBudget) {
        overBudget = true;
        log.warn("capture byte budget exceeded; page cut off", { budget: byteBudget, bytesIn });
        // Queued so the chunk being written is dropped with the rest, not half-delivered.
        queueMicrotask(cutAll);
      }
      return false;
    },
  };
  return {
    refusals,
    get closed() {
      return closed;
    },
    get bytesIn() {
      return bytesIn;
    },
    get overBudget() {
      return overBudget;
    },
    admit(conn, head) {
      if (closed || overBudget || conns.size >= maxConnections) return closeQuietly(conn);
      hooks.track(conn);
      serve({ client: conn, policy, hooks, head }).catch((error) =>
        log.debug("egress connection failed", { error })
      ).finally(() => {
        closeQuietly(conn);
        conns.delete(conn);
      });
    },
    close() {
      if (closed) return;
      closed = true;
      cutAll();
      options.onClose?.();
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
  { client, policy, hooks, ...given }: {
    client: Deno.Conn;
    policy: EgressPolicy;
    hooks: SessionHooks;
    head?: Head;
  },
): Promise<void> {
  const head = given.head ?? await readRequestHead(client);
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
    hooks.refuse(dialed.refusal);
    await writeAll(client, REFUSED);
    return;
  }
  const upstream = dialed.conn;
  hooks.track(upstream);
  try {
    if (method === "CONNECT") {
      await writeAll(client, encodeHead("HTTP/1.1 200 Connection Established", []));
      await writeAll(upstream, head.rest);
      await Promise.race([pump(client, upstream), pump(upstream, client, hooks.received)]);
    } else {
      await forwardHttp({ client, upstream, head, method, path: destination.path, hooks });
    }
  } finally {
    closeQuietly(upstream);
  }
}

/** Plain http: one request per upstream connection, so every request is resolved and checked. */
async function forwardHttp(exchange: {
  client: Deno.Conn;
  upstream: Deno.Conn;
  head: Head;
  method: string;
  path: string;
  hooks: SessionHooks;
}): Promise<void> {
  const { client, upstream, head, method, path, hooks } = exchange;
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
  if (!response || !hooks.received(response.rest.length)) return;
  // "Connection: close" to Chromium too: it must not send a second request down this tunnel,
  // which would reach the first request's host without a check of its own.
  await writeAll(client, encodeHead(response.startLine, closeDelimited(response.headers)));
  await writeAll(client, response.rest);
  await Promise.race([requestBody, pump(upstream, client, hooks.received)]);
}

/** Closes a listener or connection that may already be closed. */
export function closeQuietly(closable: { close(): void }): void {
  try {
    closable.close();
  } catch {
    // Already closed.
  }
}
