import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app_env.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import { exportAnswer } from "../codecs/failures.ts";
import { discardBody } from "./middleware.ts";

// Refused uploads up to this size (screenshots are about 0.5 to 2 MB) are drained before the 503;
// larger ones, and any that take longer than DRAIN_REFUSAL_MS, are refused with the connection.
const DRAINED_REFUSAL_BYTES = 1024 * 1024;
const DRAIN_REFUSAL_MS = 2_000;

/** The answer to an upload that did not arrive within UPLOAD_TIMEOUT_MS. */
export function uploadTooSlow(deadlineMs: number): ApiError {
  return invalidRequest("The upload did not arrive in time.", {
    hint: `Send the whole body within ${deadlineMs / 1000} seconds.`,
  });
}

/**
 * Admission for uploads, mounted by createApp on POST /api/export ahead of the body limit
 * (which buffers chunked bodies): a place in the encoder queue is reserved for the declared
 * size before any byte is read, so a client retrying into a full queue gets its 503 without
 * its upload being buffered or parsed; and the body must arrive within a deadline, so a
 * trickling client frees its place.
 */
export function exportAdmission(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    const { config, exporter } = c.var.deps;
    const deadlineMs = config.UPLOAD_TIMEOUT_MS;
    const length = c.req.header("Content-Length");
    const declared = length && /^\d+$/.test(length) ? Number(length) : config.MAX_UPLOAD_BYTES;
    let release: () => void;
    try {
      release = exporter.reserve(Math.min(declared, config.MAX_UPLOAD_BYTES));
    } catch (error) {
      const busy = exportAnswer(error);
      if (declared <= DRAINED_REFUSAL_BYTES) {
        // A small upload is read and dropped, so its client reads the 503 on a connection that
        // stays usable (a load generator counts a reset as an error, not as an answer).
        await discardBody(c.req.raw, DRAINED_REFUSAL_BYTES, DRAIN_REFUSAL_MS);
      } else if (busy instanceof ApiError) {
        // A large one is refused unread: reading 250 refused 5 MB uploads just to drop them
        // cost about 125 MB of RSS. Clients read the answer while they send; the connection
        // then closes, unread.
        busy.headers.Connection = "close";
      }
      throw busy;
    }
    const deadline = withUploadDeadline(c.req.raw, deadlineMs);
    c.req.raw = deadline.request;
    try {
      await next();
    } catch (error) {
      throw deadline.expired() ? uploadTooSlow(deadlineMs) : error;
    } finally {
      deadline.clear();
      release();
    }
  };
}

/** `request` whose body errors (and cancels the client's) once `ms` have passed unfinished. */
function withUploadDeadline(request: Request, ms: number) {
  if (!request.body) return { request, expired: () => false, clear() {} };
  const reader = request.body.getReader();
  let expired = false;
  let controller: ReadableStreamDefaultController<Uint8Array>;
  const timer = setTimeout(() => {
    expired = true;
    controller.error(uploadTooSlow(ms));
    reader.cancel().catch(() => {});
  }, ms);
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    async pull(c) {
      const { done, value } = await reader.read();
      if (expired) return;
      if (done) {
        clearTimeout(timer);
        return c.close();
      }
      c.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
  return {
    request: new Request(request, { body, duplex: "half" } as RequestInit),
    expired: () => expired,
    clear: () => clearTimeout(timer),
  };
}
