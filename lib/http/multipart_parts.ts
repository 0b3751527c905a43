/**
 * Upload forms read by our own linear parser (lib/http/form_parser.ts) with a bound on their
 * parts, before the route's validator would hand the bytes to the runtime's form parser. That
 * parser costs per part and per byte in script: 500,000 one-byte parts in 25 MiB held the event
 * loop 11 s, one 25 MiB image part about a second. The validator takes the form from the body
 * cache this sets.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app_env.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import { MalformedForm, parseForm } from "./form_parser.ts";
import { unreadableBody } from "./middleware.ts";
import { requestBytes } from "./request_bytes.ts";

/** Most parts of an upload: the export form has three, the rest is room for stray fields. */
export const MAX_FORM_PARTS = 16;

const MULTIPART = /^\s*multipart\/form-data\s*(;|$)/i;
const BOUNDARY = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i;

/**
 * Reads a multipart/form-data body into the request's form (400 for more than `maxParts` parts
 * or a body that is not a form); other bodies pass untouched.
 */
export function boundedFormParts(maxParts = MAX_FORM_PARTS): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const type = c.req.header("Content-Type") ?? "";
    const boundary = MULTIPART.test(type) ? BOUNDARY.exec(type) : null;
    if (boundary) {
      // Read once here (after the body limit, within the upload deadline).
      const body = await requestBytes(c).catch((error) => {
        throw error instanceof ApiError ? error : unreadableBody();
      });
      try {
        c.req.bodyCache.formData = await parseForm(body, boundary[1] ?? boundary[2], maxParts);
      } catch (error) {
        if (!(error instanceof MalformedForm)) throw error;
        if (error.tooManyParts) {
          throw invalidRequest("The form has too many parts.", {
            hint: `Send at most ${maxParts} parts (the export form has image, format and ` +
              "qualityPreset).",
          });
        }
        throw invalidRequest(`Malformed FormData request. ${error.message}`, {
          hint: "Send a multipart/form-data body as a browser's FormData writes it.",
        });
      }
    }
    await next();
  };
}
