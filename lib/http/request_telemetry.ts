import { trace } from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "./app_env.ts";
import { METRICS } from "../telemetry/metrics.ts";
import { inProcessCallOf } from "./in_process.ts";

// Any other method is counted as "other": the label must stay a small closed set.
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Counts every answered request by route pattern (never the raw path: ids and query strings
 * would make one series per request) and names Deno's server span after the route.
 */
export function requestTelemetry(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // A tool call's own request is counted as the tool call; the active span is the tool's.
    if (inProcessCallOf(c.req.raw)) return await next();
    await next();
    // The last matched route is the handler's (or its 405 fallback, same pattern); "*" otherwise.
    const route = routePath(c, -1) || "*";
    const method = METHODS.has(c.req.method) ? c.req.method : "other";
    METRICS.requests.inc({ route, method, status: String(c.res.status) });
    const span = trace.getActiveSpan();
    span?.setAttribute("http.route", route);
    span?.updateName(`${method} ${route}`);
  };
}
