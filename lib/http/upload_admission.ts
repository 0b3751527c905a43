import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app_env.ts";
import { ApiError } from "../errors.ts";

/** The answer to an upload that did not arrive within UPLOAD_TIMEOUT_MS. */
export function uploadTooSlow(deadlineMs: number): ApiError {
  return new ApiError(400, "invalid_request", "The upload did not arrive in time.", {
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
    } catch (busy) {
      // Refused before reading a byte: reading even to drop it cost about 0.5 MB per refused
      // upload under a flood (README, Performance). The client still reads the 503 (HTTP
      // clients read the answer while they send); the connection then closes, unread.
      if (busy instanceof ApiError) busy.headers.Connection = "close";
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
