import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { ApiError } from "../errors.ts";

/** SHA-256 of both sides makes the comparison fixed-length, so no length leaks either. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * 401 `unauthorized` unless the request carries `Authorization: Bearer <token>` (an operator
 * endpoint: `realm` names it, e.g. "cache-admin" or "metrics"). An unset token fails closed.
 */
export function requireBearer(c: Context<AppEnv>, token: string | undefined, realm: string) {
  const given = c.req.header("Authorization")?.match(/^Bearer[ \t]+(\S+)[ \t]*$/i)?.[1];
  // Constant-time compare: response timing must not reveal how much of a guess was right.
  if (!token || !given || !sameSecret(given, token)) {
    throw new ApiError(401, "unauthorized", `A valid ${realm} token is required.`, {
      headers: { "WWW-Authenticate": `Bearer realm="${realm}"` },
    });
  }
}
