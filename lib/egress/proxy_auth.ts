/**
 * Credentials of the egress proxy's listener for remote browsers: each capture gets a fresh
 * random username and password, valid only while it runs, and failed attempts are counted per
 * source address. A proxy reachable from the network must never become an open proxy.
 */

/** What a remote browser context answers the proxy's Basic challenge with. */
export interface ProxyCredentials {
  username: string;
  password: string;
}

/** Why a request was not admitted; `missing` is the normal first step of Basic auth. */
export type AuthFailure = "missing" | "malformed" | "unknown" | "stale" | "wrong_password";

export type AuthVerdict<T> = { ok: true; value: T } | { ok: false; reason: AuthFailure };

export interface CredentialRegistry<T> {
  /** Fresh credentials that admit to `value` until `revoke()`. */
  issue(value: T): { credentials: ProxyCredentials; revoke(): void };
  /** Judges a Proxy-Authorization header value. */
  check(header: string | undefined): AuthVerdict<T>;
}

// Revoked usernames are remembered this long, so a late request of a finished capture is told
// apart from a guess (and does not count against its browser's address).
const STALE_MEMORY_MS = 5 * 60_000;
// Bounds that memory whatever the capture rate.
const MAX_STALE = 10_000;

/** A registry of live credentials; `now` is the clock in ms. */
export function createCredentialRegistry<T>(now: () => number = Date.now): CredentialRegistry<T> {
  const live = new Map<string, { password: string; value: T }>();
  const stale = new Map<string, number>();
  const forgetOld = () => {
    for (const [username, at] of stale) {
      if (stale.size <= MAX_STALE && now() - at < STALE_MEMORY_MS) break;
      stale.delete(username);
    }
  };
  return {
    issue(value) {
      // 128 bits of username and 256 of password: guessing either is hopeless.
      const credentials = { username: randomToken(16), password: randomToken(32) };
      live.set(credentials.username, { password: credentials.password, value });
      return {
        credentials,
        revoke() {
          if (!live.delete(credentials.username)) return;
          stale.set(credentials.username, now());
          forgetOld();
        },
      };
    },
    check(header) {
      if (!header) return { ok: false, reason: "missing" };
      const decoded = decodeBasic(header);
      if (!decoded) return { ok: false, reason: "malformed" };
      const entry = live.get(decoded.username);
      if (!entry) {
        forgetOld();
        return { ok: false, reason: stale.has(decoded.username) ? "stale" : "unknown" };
      }
      if (!constantTimeEqual(entry.password, decoded.password)) {
        return { ok: false, reason: "wrong_password" };
      }
      return { ok: true, value: entry.value };
    },
  };
}

/** Counts failures per source address in a sliding window; past `limit` the address waits. */
export interface FailureLimiter {
  /** Seconds until `address` may try again, or 0 when it may now. */
  retryAfter(address: string): number;
  fail(address: string): void;
}

// Bounds the memory an address-spraying peer can make the limiter hold.
const MAX_TRACKED_ADDRESSES = 10_000;

/** At most `limit` failures per address in any `windowMs`. */
export function createFailureLimiter(
  options: { limit: number; windowMs: number; now?: () => number },
): FailureLimiter {
  const { limit, windowMs } = options;
  const now = options.now ?? Date.now;
  const failures = new Map<string, number[]>();
  const recent = (address: string) => {
    const since = now() - windowMs;
    const times = (failures.get(address) ?? []).filter((t) => t > since);
    if (times.length === 0) failures.delete(address);
    else failures.set(address, times);
    return times;
  };
  return {
    retryAfter(address) {
      const times = recent(address);
      if (times.length < limit) return 0;
      return Math.max(1, Math.ceil((times[times.length - limit] + windowMs - now()) / 1000));
    },
    fail(address) {
      const times = recent(address);
      times.push(now());
      failures.delete(address);
      failures.set(address, times);
      // The map keeps insertion order: the first entry is the address that failed longest ago.
      if (failures.size > MAX_TRACKED_ADDRESSES) failures.delete(failures.keys().next().value!);
    },
  };
}

function decodeBasic(header: string): ProxyCredentials | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return null;
  let text: string;
  try {
    text = atob(match[1]);
  } catch {
    return null;
  }
  const colon = text.indexOf(":");
  if (colon < 0) return null;
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

function randomToken(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares without an early exit, so the time taken says nothing about a near miss. */
function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  }
  return diff === 0;
}
