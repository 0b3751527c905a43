/**
 * The egress proxy's listener for remote browsers (EGRESS_PROXY_LISTEN): the same policy and
 * per-connection serving as the loopback sessions of the local browser, reachable from the
 * fleet's network, and admitting only requests that carry the credentials of a running capture.
 */
import type { Logger } from "../log.ts";
import type { EgressPolicy } from "./policy.ts";
import type { EgressRefusal } from "./types.ts";
import {
  closeQuietly,
  type ConnectionScope,
  createConnectionScope,
  type EgressLimits,
  readRequestHead,
} from "./proxy.ts";
import { proxyResponse, writeAll } from "./http_wire.ts";
import {
  type AuthFailure,
  createCredentialRegistry,
  createFailureLimiter,
  type ProxyCredentials,
} from "./proxy_auth.ts";

// Failed authentications (bad, unknown or malformed credentials) one source address may make in
// a minute before it is answered 429 without a look at its credentials.
const AUTH_FAILURES_PER_MINUTE = 20;
// Connections still being judged (head not read yet): bounds what unauthenticated peers can hold.
const MAX_UNAUTHENTICATED = 256;
// The realm Chromium shows in Fetch.authRequired; it names the service, never a capture.
const REALM = "shotline";

/** One remote capture's way out. */
export interface FleetSession {
  /** What the capture's browser context answers the proxy's challenge with. */
  readonly credentials: ProxyCredentials;
  /** Destinations refused or unreachable, oldest first. */
  readonly refusals: readonly EgressRefusal[];
  /** Revokes the credentials and cuts every connection of the capture. */
  close(): void;
}

export interface FleetProxy {
  /** EGRESS_PROXY_URL: the proxy server to give remote browser contexts. */
  readonly url: string;
  /** The same listener as this process reaches it (loopback for a wildcard address). */
  readonly localUrl: string;
  openSession(): FleetSession;
  /** Stops listening and closes every session. */
  close(): void;
}

export interface FleetProxyOptions {
  /** EGRESS_PROXY_LISTEN. */
  listen: { hostname: string; port: number };
  /** EGRESS_PROXY_URL; `http://<listen address>` when absent (tests listen on port 0). */
  url?: string;
  policy: EgressPolicy;
  /** Per-capture budgets, as on the local browser's sessions (CAPTURE_BYTE_BUDGET). */
  limits?: EgressLimits;
  log: Logger;
  /** Clock in ms for credential expiry and the failure window (tests inject one). */
  now?: () => number;
}

/** Listens at once; throws, naming EGRESS_PROXY_LISTEN, when the address cannot be bound. */
export function createFleetProxy(options: FleetProxyOptions): FleetProxy {
  const { policy, log, listen } = options;
  let listener: Deno.Listener;
  try {
    listener = Deno.listen({ hostname: listen.hostname, port: listen.port });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`EGRESS_PROXY_LISTEN=${listen.hostname}:${listen.port}: ${reason}`);
  }
  const registry = createCredentialRegistry<ConnectionScope>(options.now);
  const limiter = createFailureLimiter({ limit: AUTH_FAILURES_PER_MINUTE, windowMs: 60_000 });
  const sessions = new Set<FleetSession>();
  let unauthenticated = 0;
  let closed = false;

  const refuse = async (conn: Deno.Conn, source: string, reason: AuthFailure) => {
    // Chromium's first request of every context comes without credentials: that is the Basic
    // challenge working, not an attack, so it neither counts nor logs above debug.
    // A finished capture's context may still be closing: its late requests are expected too.
    if (reason === "missing") log.debug("egress proxy challenge", { source });
    else if (reason === "stale") {
      log.info("egress proxy authentication refused", { source, reason });
    } else {
      limiter.fail(source);
      log.warn("egress proxy authentication refused", { source, reason });
    }
    await writeAll(
      conn,
      proxyResponse(407, "Proxy Authentication Required", "proxy_auth_required", [
        ["Proxy-Authenticate", `Basic realm="${REALM}"`],
      ]),
    );
  };

  const admit = async (conn: Deno.Conn) => {
    const source = (conn.remoteAddr as Deno.NetAddr).hostname;
    const wait = limiter.retryAfter(source);
    if (wait > 0) {
      await writeAll(
        conn,
        proxyResponse(429, "Too Many Requests", "too_many_auth_failures", [
          ["Retry-After", String(wait)],
        ]),
      );
      return closeQuietly(conn);
    }
    const head = await readRequestHead(conn);
    if (!head) return closeQuietly(conn);
    const header = head.headers.find(([name]) => name.toLowerCase() === "proxy-authorization");
    const verdict = registry.check(header?.[1]);
    if (verdict.ok) return verdict.value.admit(conn, head);
    await refuse(conn, source, verdict.reason);
    closeQuietly(conn);
  };

  (async () => {
    try {
      for await (const conn of listener) {
        if (unauthenticated >= MAX_UNAUTHENTICATED) {
          closeQuietly(conn);
          continue;
        }
        unauthenticated++;
        admit(conn).catch(() => closeQuietly(conn)).finally(() => unauthenticated--);
      }
    } catch (error) {
      if (!closed) log.error("egress proxy listener stopped", { error });
    }
  })();
  log.info("egress proxy listening for remote browsers", { ...listen });

  const port = (listener.addr as Deno.NetAddr).port;
  const local = { "0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]" }[listen.hostname];
  const host = local ?? (listen.hostname.includes(":") ? `[${listen.hostname}]` : listen.hostname);
  return {
    url: options.url ?? `http://${listen.hostname}:${port}`,
    localUrl: `http://${host}:${port}`,
    openSession() {
      const scope = createConnectionScope({ policy, log, limits: options.limits });
      const { credentials, revoke } = registry.issue(scope);
      const session: FleetSession = {
        credentials,
        refusals: scope.refusals,
        close() {
          revoke();
          scope.close();
          sessions.delete(session);
        },
      };
      sessions.add(session);
      return session;
    },
    close() {
      closed = true;
      closeQuietly(listener);
      for (const session of [...sessions]) session.close();
    },
  };
}
