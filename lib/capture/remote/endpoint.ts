/**
 * One remote browser of BROWSER_WS_ENDPOINT: connected over CDP with `puppeteer.connect`,
 * reconnected in the background with exponential backoff when the connection drops. We never
 * launch or close that browser; `close()` only disconnects.
 */
import type { Browser } from "puppeteer-core";
import { loadPuppeteer } from "../page/puppeteer.ts";
import type { Logger } from "../../log.ts";
import { withTimeout } from "../../timeout.ts";
import type { CaptureBackendStatus } from "../types.ts";
import { METRICS } from "../../telemetry/metrics.ts";

// A WebSocket upgrade that has not completed by then will not; without it a host that accepts
// TCP but never answers would hold a capture until the OS gives up.
const HANDSHAKE_TIMEOUT_MS = 10_000;
// The whole connect (handshake plus target discovery) is bounded the same way.
const CONNECT_TIMEOUT_MS = 15_000;
// Pings find a connection that died without a close frame (a NAT or load balancer dropped it).
const KEEPALIVE_INTERVAL_MS = 15_000;
// Bounds every CDP call, so a wedged remote browser cannot hang a capture forever.
const PROTOCOL_TIMEOUT_MS = 45_000;
// Error texts go to logs and /healthz: short, and without the endpoint's URL (it may hold a token).
const MAX_REASON_LENGTH = 160;

/** Delay before reconnecting: `minMs` after a drop, doubling per failed attempt up to `maxMs`. */
export interface Backoff {
  minMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { minMs: 500, maxMs: 30_000 };

export interface RemoteEndpoint {
  /** host:port of the endpoint, without credentials, path or query (for logs and /healthz). */
  readonly label: string;
  /** The connected browser, or null. */
  current(): Browser | null;
  /** Connects unless connected (joins an attempt under way); rejects at once while backing off. */
  connect(): Promise<Browser>;
  status(): Omit<CaptureBackendStatus, "name">;
  /** Whole seconds until the next connection attempt, at least 1 (for Retry-After). */
  retryAfterSeconds(): number;
  /** Disconnects (the remote browser keeps running) and stops reconnecting. */
  close(): Promise<void>;
}

/** The endpoint's host:port, which is all that may be shown of it. */
export function endpointLabel(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return "invalid endpoint";
  }
}

/** Makes the endpoint object; nothing connects before `connect()`. */
export function createRemoteEndpoint(
  endpoint: string,
  options: { log: Logger; backoff?: Backoff },
): RemoteEndpoint {
  const { log } = options;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const label = endpointLabel(endpoint);
  let url = endpoint;
  let browser: Browser | null = null;
  let connecting: Promise<Browser> | null = null;
  let failures = 0;
  let nextAttemptAt = 0;
  let lastReason = "not connected yet";
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const scheduleReconnect = (delayMs: number) => {
    nextAttemptAt = performance.now() + delayMs;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      connect().catch(() => {});
    }, delayMs);
  };

  const attempt = async (): Promise<Browser> => {
    try {
      return await connectOnce(url);
    } catch (error) {
      // A restarted Chrome has a new browser id in its WebSocket path; its /json/version
      // (same host and port) names the new one.
      const rediscover = discoveryUrl(url);
      if (!rediscover) throw error;
      const found = await connectOnce(undefined, rediscover).catch(() => {
        throw error;
      });
      url = found.wsEndpoint();
      return found;
    }
  };

  const connect = (): Promise<Browser> => {
    if (closed) return Promise.reject(new Error(`remote browser ${label} is shut down`));
    if (browser?.connected) return Promise.resolve(browser);
    if (connecting) return connecting;
    if (performance.now() < nextAttemptAt) {
      return Promise.reject(new Error(`remote browser ${label} is unreachable: ${lastReason}`));
    }
    connecting = attempt().then(async (connected) => {
      if (closed) {
        await connected.disconnect().catch(() => {});
        throw new Error(`remote browser ${label} is shut down`);
      }
      failures = 0;
      nextAttemptAt = 0;
      browser = connected;
      METRICS.browserStarts.inc({ backend: "chromium-remote" });
      log.info("remote browser connected", { endpoint: label });
      connected.once("disconnected", () => {
        if (browser !== connected) return;
        browser = null;
        lastReason = "disconnected";
        if (closed) return;
        METRICS.browserLosses.inc({ backend: "chromium-remote" });
        log.warn("remote browser disconnected; reconnecting", { endpoint: label });
        scheduleReconnect(backoff.minMs);
      });
      return connected;
    }, (error) => {
      failures++;
      lastReason = describe(error, endpoint, url);
      const delay = Math.min(backoff.maxMs, backoff.minMs * 2 ** (failures - 1));
      log.warn("remote browser unreachable", {
        endpoint: label,
        reason: lastReason,
        retryInMs: delay,
      });
      if (!closed) scheduleReconnect(delay);
      throw new Error(`remote browser ${label} is unreachable: ${lastReason}`);
    }).finally(() => {
      connecting = null;
    });
    return connecting;
  };

  return {
    label,
    current: () => (browser?.connected ? browser : null),
    connect,
    status() {
      if (browser?.connected) return { state: "ready", detail: label };
      if (connecting) return { state: "starting", detail: label };
      return { state: "down", detail: `${label}: ${lastReason}` };
    },
    retryAfterSeconds() {
      return Math.max(1, Math.ceil((nextAttemptAt - performance.now()) / 1000));
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await connecting?.catch(() => {});
      const connected = browser;
      browser = null;
      await connected?.disconnect().catch(() => {});
    },
  };
}

/** One bounded `puppeteer.connect`; a connection that arrives after the deadline is dropped. */
async function connectOnce(browserWSEndpoint?: string, browserURL?: string): Promise<Browser> {
  const puppeteer = await loadPuppeteer();
  const connecting = puppeteer.connect({
    browserWSEndpoint,
    browserURL,
    defaultViewport: null,
    protocolTimeout: PROTOCOL_TIMEOUT_MS,
    wsOptions: {
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      keepAlive: true,
      keepAliveIntervalMs: KEEPALIVE_INTERVAL_MS,
    },
  });
  try {
    return await withTimeout(
      connecting,
      CONNECT_TIMEOUT_MS,
      () => new Error("connection timed out"),
    );
  } catch (error) {
    connecting.then((b) => b.disconnect()).catch(() => {});
    throw error;
  }
}

/** `http(s)://host:port` for a plain Chrome endpoint (`/devtools/browser/<id>`, no query). */
function discoveryUrl(endpoint: string): string | undefined {
  try {
    const url = new URL(endpoint);
    if (!/^\/devtools\/browser\/[^/]+$/.test(url.pathname) || url.search || url.username) return;
    return `${url.protocol === "wss:" ? "https" : "http"}://${url.host}`;
  } catch {
    return;
  }
}

/** A short reason without any URL (a token may ride in the endpoint's query or path). */
function describe(error: unknown, ...secrets: string[]): string {
  const message = error instanceof Error
    ? error.message
    : typeof (error as { message?: unknown })?.message === "string"
    ? (error as { message: string }).message
    : "connection failed";
  let text = message;
  for (const secret of secrets) text = text.replaceAll(secret, "<endpoint>");
  text = text.replace(/\b(?:wss?|https?):\/\/\S+/g, "<endpoint>");
  return (text.trim() || "connection failed").slice(0, MAX_REASON_LENGTH);
}
