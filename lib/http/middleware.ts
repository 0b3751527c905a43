import { isUtf8 } from "node:buffer";
import type { Context, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/deno";
import type { AppEnv } from "./app_env.ts";
import type { OperatorCaller } from "./bearer.ts";
import { resolveClientIp } from "./client_ip.ts";
import { inProcessCallOf } from "./in_process.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import { JSON_BOUNDS, jsonShape } from "./json_shape.ts";
import { requestBytes } from "./request_bytes.ts";

// Client-chosen ids are kept only when they cannot smuggle anything into logs or headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a sane incoming X-Request-Id (or makes one) and echoes it on every response. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("X-Request-Id");
    const id = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", id);
    c.set("logFields", {});
    await next();
    c.header("X-Request-Id", id);
  };
}

/** The socket peer, or undefined for in-process requests (app.request in tests). */
export function peerAddress(c: Context<AppEnv>): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** The client IP under TRUST_PROXY_HOPS (see client_ip.ts). */
export function clientIpOf(c: Context<AppEnv>): string {
  return resolveClientIp(
    peerAddress(c),
    c.req.header("X-Forwarded-For"),
    c.var.deps.config.TRUST_PROXY_HOPS,
  );
}

/** The caller of an operator endpoint, as the bearer check reads it. */
export function operatorCaller(c: Context<AppEnv>): OperatorCaller {
  return { ip: clientIpOf(c), authorization: c.req.header("Authorization") };
}

/** One JSON line per request, after the response is known. */
export function accessLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    // Read first: a middleware may swap the raw request for a wrapper on the way in.
    const call = inProcessCallOf(c.req.raw);
    await next();
    c.var.deps.log.info("request", {
      requestId: c.var.requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      clientIp: clientIpOf(c),
      ...(call ? { via: "mcp", tool: call.tool } : {}),
      ...c.var.logFields,
    });
  };
}

// RFC 8259 makes JSON UTF-8; a decoder that repairs bad bytes would capture a URL nobody sent.
// Checked with node:buffer's isUtf8 (native, SIMD): a fatal TextDecoder took 0.9 s on a 33 MiB
// /mcp body, holding the event loop.
const JSON_CONTENT_TYPE = /^\s*application\/([a-z0-9.-]+\+)?json\s*(;|$)/i;

/**
 * Refuses a JSON body that is not valid UTF-8, or that holds more values or nesting than
 * JSON_BOUNDS (before anything parses it); the bytes stay cached for the validator. Paths in
 * `ownBounds` answer a body past the bounds in their own protocol's words.
 */
export function utf8JsonBody(ownBounds: readonly string[] = []): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (JSON_CONTENT_TYPE.test(c.req.header("Content-Type") ?? "")) {
      // After the body limit (64 KiB, more for a capture's html). A read that breaks off is the
      // client's error.
      const bytes = await requestBytes(c).catch((error) => {
        throw error instanceof ApiError ? error : unreadableBody();
      });
      if (!isUtf8(bytes)) {
        throw invalidRequest("The JSON body is not valid UTF-8.", {
          hint: "Encode the request body as UTF-8 JSON.",
        });
      }
      if (!ownBounds.includes(c.req.path)) checkJsonBounds(bytes);
    }
    await next();
  };
}

// Parsing and schema checks cost per value, not per byte: a body under its byte limit could
// still hold a million of them and hold the event loop for seconds.
function checkJsonBounds(bytes: Uint8Array) {
  const { over } = jsonShape(bytes);
  if (over === "values") {
    throw invalidRequest("The JSON body holds too many values.", {
      hint: `Send at most ${JSON_BOUNDS.maxValues} values (array elements and object members).`,
    });
  }
  if (over === "depth") {
    throw invalidRequest("The JSON body is nested too deeply.", {
      hint: `Nest arrays and objects at most ${JSON_BOUNDS.maxDepth} levels deep.`,
    });
  }
}

/** 400 for a request body that broke off or was framed wrongly while being read. */
export function unreadableBody(): ApiError {
  return invalidRequest("The request body could not be read.", {
    hint: "Send the whole body with a correct Content-Length or chunked encoding.",
  });
}

/**
 * Reads and drops a request body, up to `maxBytes` or `maxMs` (then cancels the rest: a client
 * trickling an upload we already refused must not hold the handler).
 */
export async function discardBody(
  request: Request,
  maxBytes: number,
  maxMs = 10_000,
): Promise<void> {
  if (!request.body || request.bodyUsed) return;
  const reader = request.body.getReader();
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), maxMs);
  let read = 0;
  try {
    while (read <= maxBytes) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // A client that breaks off mid-upload needs no answer body either.
  } finally {
    clearTimeout(deadline);
  }
}
