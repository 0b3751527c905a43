/**
 * The part count of a multipart/form-data body, bounded before the form is parsed. The runtime's
 * form parser costs per part: a 25 MiB upload of 500,000 one-byte parts held the event loop for
 * 11 s before the route could say the form had no image. The delimiters are counted with the
 * native Buffer.indexOf, stopping past the bound, so the count costs next to nothing.
 */
import { Buffer } from "node:buffer";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app_env.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import { unreadableBody } from "./middleware.ts";

/** Most parts of an upload: the export form has three, the rest is room for stray fields. */
export const MAX_FORM_PARTS = 16;

const BOUNDARY = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i;

/**
 * At most `maxParts + 1` delimiters of `boundary` in `body` counted (the closing one included);
 * the count is exact while it stays within that.
 */
export function countDelimiters(body: Uint8Array, boundary: string, maxParts: number): number {
  const delimiter = Buffer.from(`--${boundary}`);
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let count = 0;
  for (let at = bytes.indexOf(delimiter); at >= 0; at = bytes.indexOf(delimiter, at + 1)) {
    if (++count > maxParts + 1) break;
  }
  return count;
}

/** 400 for a multipart/form-data body of more than `maxParts` parts; other bodies pass. */
export function boundedFormParts(maxParts = MAX_FORM_PARTS): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const type = c.req.header("Content-Type") ?? "";
    const boundary = /^\s*multipart\/form-data/i.test(type) ? BOUNDARY.exec(type) : null;
    if (boundary) {
      // Read once here (after the body limit); the route's form validator reuses the bytes.
      const body = new Uint8Array(
        await c.req.arrayBuffer().catch((error) => {
          throw error instanceof ApiError ? error : unreadableBody();
        }),
      );
      // n parts have n delimiters and a closing one.
      if (countDelimiters(body, boundary[1] ?? boundary[2], maxParts) > maxParts + 1) {
        throw invalidRequest("The form has too many parts.", {
          hint: `Send at most ${maxParts} parts (the export form has image, format and ` +
            "qualityPreset).",
        });
      }
    }
    await next();
  };
}
