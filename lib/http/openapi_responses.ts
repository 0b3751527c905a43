import { z } from "@hono/zod-openapi";
import { ERROR_CODES, type ErrorCode, ErrorSchema, RateLimitErrorSchema } from "../errors.ts";

/** A response body of raw bytes under each of `mediaTypes` (an image, a file, a stream). */
export function binaryContent(...mediaTypes: string[]) {
  const schema = z.string().openapi({ format: "binary" });
  return Object.fromEntries(mediaTypes.map((type) => [type, { schema }]));
}

/** The headers of a 503 from a busy encoder (an export or a frame): when to try again. */
export const BUSY_HEADERS = z.object({
  "Retry-After": z.string().openapi({ description: "Seconds to wait.", example: "2" }),
});

export const RATE_LIMIT_HEADERS = z.object({
  "Retry-After": z.string().openapi({ description: "Seconds to wait (integer).", example: "42" }),
  "X-RateLimit-Limit": z.string().openapi({
    description: "Requests allowed per window (integer).",
    example: "20",
  }),
  "X-RateLimit-Remaining": z.string().openapi({
    description: "Requests remaining in the current window (integer).",
    example: "0",
  }),
  "X-RateLimit-Reset": z.string().openapi({
    description: "Unix epoch milliseconds at which the window resets (integer).",
    example: "1767225600000",
  }),
});

// Error response descriptions end with their codes, so a reader of /openapi.json sees them and
// the reference pages can link each code to its entry.
const CODES_LEAD = " Codes: ";
const CODES_TAIL = / Codes: ([a-z_]+(?:, [a-z_]+)*)\.$/;

/** Splits an error response description into its sentence and the codes it names. */
export function splitErrorDescription(description: string): { when: string; codes: ErrorCode[] } {
  const match = CODES_TAIL.exec(description);
  const codes = match?.[1].split(", ") ?? [];
  const known = (code: string) => (ERROR_CODES as readonly string[]).includes(code);
  if (!match || !codes.every(known)) return { when: description, codes: [] };
  return { when: description.slice(0, match.index), codes: codes as ErrorCode[] };
}

type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 413 | 416 | 429 | 500 | 502 | 503;

/**
 * Documented error responses of one operation: each status with its meaning and the codes it
 * carries, all with the envelope schema (429 with RateLimitError and its headers).
 */
export function errorResponses(
  statuses: Partial<Record<ErrorStatus, { when: string; codes: ErrorCode[] }>>,
) {
  return Object.fromEntries(
    Object.entries(statuses).map(([status, { when, codes }]) => {
      const description = `${when}${CODES_LEAD}${codes.join(", ")}.`;
      if (status === "429") {
        return [status, {
          description,
          headers: RATE_LIMIT_HEADERS,
          content: { "application/json": { schema: RateLimitErrorSchema } },
        }];
      }
      if (status === "405") {
        return [status, {
          description,
          headers: z.object({ Allow: z.string().openapi({ example: "POST, OPTIONS" }) }),
          content: { "application/json": { schema: ErrorSchema } },
        }];
      }
      return [status, { description, content: { "application/json": { schema: ErrorSchema } } }];
    }),
  );
}
