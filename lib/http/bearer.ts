import { createHash, timingSafeEqual } from "node:crypto";
import { rateLimited, unauthorized } from "../errors.ts";
import type { Logger } from "../log.ts";
import { type Clock, secondsUntil } from "../clock.ts";
import { createMemoryWindow } from "./memory_window.ts";

/** Failed token attempts allowed per client IP and minute; then every attempt gets 429. */
export const OPERATOR_FAILURES_PER_MINUTE = 10;
const FAILURE_WINDOW_MS = 60_000;

/** The bearer check of the operator endpoints (cache maintenance, metrics). */
export interface OperatorAuth {
  /**
   * 401 `unauthorized` unless the request carries `Authorization: Bearer <token>`; `realm` names
   * the endpoint ("cache-admin", "metrics"). An unset token fails closed.
   */
  require(caller: OperatorCaller, token: string | undefined, realm: string): void;
}

/** Who asks: the client IP the app resolved and the request's Authorization header. */
export interface OperatorCaller {
  ip: string;
  authorization: string | undefined;
}

/** SHA-256 of both sides makes the comparison fixed-length, so no length leaks either. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * One per app. Online guessing is throttled per IP across every operator endpoint: after
 * OPERATOR_FAILURES_PER_MINUTE failures, every attempt (a right one included, or the throttle
 * would confirm a guess) gets 429 until the window moves. Counted in this instance's memory:
 * the store may be what is under attack, or down.
 */
export function createOperatorAuth(deps: { clock: Clock; log: Logger }): OperatorAuth {
  const { clock, log } = deps;
  const failures = createMemoryWindow(FAILURE_WINDOW_MS);
  return {
    require(caller, token, realm) {
      const { ip } = caller;
      const now = clock.now();
      const state = failures.peek(ip, OPERATOR_FAILURES_PER_MINUTE, now);
      if (!state.allowed) {
        const retryAfter = secondsUntil(state.resetAt, now);
        log.warn("operator token attempts throttled", { realm, clientIp: ip });
        throw rateLimited("Too many failed operator token attempts.", {
          hint: `Wait ${retryAfter} seconds; at most ${OPERATOR_FAILURES_PER_MINUTE} failed ` +
            "attempts per minute are accepted from one IP address.",
          extra: { retryAfter },
          headers: { "Retry-After": String(retryAfter) },
        });
      }
      const given = caller.authorization?.match(/^Bearer[ \t]+(\S+)[ \t]*$/i)?.[1];
      // Constant-time compare: response timing must not reveal how much of a guess was right.
      if (!token || !given || !sameSecret(given, token)) {
        failures.hit(ip, OPERATOR_FAILURES_PER_MINUTE, now);
        log.warn("operator token refused", { realm, clientIp: ip });
        throw unauthorized(`A valid ${realm} token is required.`, {
          headers: { "WWW-Authenticate": `Bearer realm="${realm}"` },
        });
      }
    },
  };
}
