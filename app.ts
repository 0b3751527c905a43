import { HTTPException } from "hono/http-exception";
import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./lib/http/app_env.ts";
import type { AppDeps } from "./lib/services.ts";
import {
  ApiError,
  ErrorSchema,
  internalError,
  invalidRequest,
  notFound,
  RateLimitErrorSchema,
} from "./lib/errors.ts";
import { errorResponse } from "./lib/http/error_response.ts";
import { typedFailureError } from "./lib/capture/mod.ts";
import { base64Length } from "./lib/bytes.ts";
import { createRouter, METHOD_PROBE, notAllowedHere } from "./lib/http/router.ts";
import { accessLog, requestId, unreadableBody, utf8JsonBody } from "./lib/http/middleware.ts";
import { requestTelemetry } from "./lib/http/request_telemetry.ts";
import { createCacheAdminRouter } from "./routes/cache_admin.ts";
import { createCapturesRouter } from "./routes/captures.ts";
import { createDiscoveryRouter } from "./routes/discovery.ts";
import { createEditorRouter } from "./routes/editor.ts";
import { createExportRouter } from "./routes/export.ts";
import { createFrameRouter } from "./routes/frame.ts";
import { exportAdmission } from "./lib/http/upload_admission.ts";
import { boundedFormParts } from "./lib/http/multipart_parts.ts";
import { createHealthRouter } from "./routes/health.ts";
import { createImageProxyRouter } from "./routes/image_proxy.ts";
import { createMetricsRouter } from "./routes/metrics.ts";
import { createMcpRouter } from "./routes/mcp.ts";
import { MCP_PATH } from "./lib/mcp/tools.ts";
import { createPostRouter } from "./routes/post.ts";
import { createRenderRouter } from "./routes/render.ts";
import { createScreenshotRouter } from "./routes/screenshot.ts";
import { SCREENSHOT_BODY_LIMIT } from "./lib/capture/mod.ts";
import { createJobsRouter } from "./routes/jobs.ts";
import { JOBS_BODY_LIMIT } from "./lib/jobs/service.ts";

// JSON bodies of this API are tiny; only the export upload gets MAX_UPLOAD_BYTES.
const DEFAULT_BODY_LIMIT = 64 * 1024;

/** Builds the whole service from ready-made components; no side effects beyond routing. */
export function createApp(deps: AppDeps) {
  const app = createRouter();
  // Published even before any route refers to them: every failure anywhere uses them.
  app.openAPIRegistry.register("Error", ErrorSchema);
  app.openAPIRegistry.register("RateLimitError", RateLimitErrorSchema);

  app.use("*", async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  app.use("*", requestId(), accessLog(), requestTelemetry());
  // Frames run on the export's codecs: one admission for both.
  app.use("/api/export", exportAdmission());
  app.use("/api/frame", exportAdmission());
  const uploadLimit = bodyLimitOf(deps.config.MAX_UPLOAD_BYTES, "Upload a smaller image");
  const jsonLimit = bodyLimitOf(DEFAULT_BODY_LIMIT, "Send a smaller JSON body");
  // A capture request may carry a whole html document; an MCP call of export_image carries the
  // upload as base64 (4 bytes per 3) inside JSON-RPC.
  const captureLimit = bodyLimitOf(SCREENSHOT_BODY_LIMIT, "Send a smaller html document");
  const mcpLimit = bodyLimitOf(
    base64Length(deps.config.MAX_UPLOAD_BYTES) + DEFAULT_BODY_LIMIT,
    "Send a smaller MCP message",
  );
  const limits: Record<string, MiddlewareHandler<AppEnv>> = {
    "/api/export": uploadLimit,
    "/api/frame": uploadLimit,
    "/api/screenshot": captureLimit,
    "/api/jobs": bodyLimitOf(JOBS_BODY_LIMIT, "Send fewer or smaller requests"),
    [MCP_PATH]: mcpLimit,
  };
  app.use("*", (c, next) => (limits[c.req.path] ?? jsonLimit)(c, next));
  // /mcp answers a body past the JSON bounds with a JSON-RPC error of its own (lib/mcp/batch.ts).
  app.use("*", utf8JsonBody([MCP_PATH]));
  app.use("/api/export", boundedFormParts());
  app.use("/api/frame", boundedFormParts());

  // API operations first: the order here is the order of /openapi.json and /llms.txt.
  app.route("/", createScreenshotRouter());
  // Without RENDER_LINK_SECRET no link can be verified: the route does not exist (404).
  if (deps.config.RENDER_LINK_SECRET) app.route("/", createRenderRouter());
  app.route("/", createJobsRouter());
  // Not rate limited: it renders nothing, and what it serves is bounded by the link's bytes.
  app.route("/", createCapturesRouter());
  app.route("/", createExportRouter());
  app.route("/", createFrameRouter());
  app.route("/", createPostRouter());
  app.route("/", createImageProxyRouter());
  app.route("/", createMcpRouter(() => app));
  // Without CACHE_ADMIN_TOKEN the purge route does not exist at all (404 for every method).
  if (deps.config.CACHE_ADMIN_TOKEN) app.route("/", createCacheAdminRouter());
  // Likewise GET /metrics without METRICS_TOKEN.
  if (deps.config.METRICS_TOKEN) app.route("/", createMetricsRouter());
  app.route("/", createDiscoveryRouter(() => app));
  app.route("/", createEditorRouter(() => app));
  app.route("/", createHealthRouter());

  mountMethodFallbacks(app);

  app.notFound((c) => errorResponse(c, notFound(`No route for ${c.req.method} ${c.req.path}.`)));
  app.onError((err, c) => errorResponse(c, toApiError(err, deps, c.var.requestId)));
  return app;
}

type App = ReturnType<typeof createRouter>;

/**
 * Known paths answer 405 with an Allow header for methods they lack, and OPTIONS with 204.
 * Registered after every real route, so a real handler always matches first.
 */
function mountMethodFallbacks(app: App) {
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const methods = methodsByPath.get(route.path) ?? new Set<string>();
    methodsByPath.set(route.path, methods);
    if ((route.handler as unknown as Record<symbol, unknown>)[METHOD_PROBE]) continue;
    methods.add(route.method);
    if (route.method === "GET") methods.add("HEAD");
  }
  for (const [path, methods] of methodsByPath) {
    const allowed = [...methods, "OPTIONS"];
    app.options(path, (c) => c.body(null, 204, { Allow: allowed.join(", ") }));
    app.all(path, (c) => {
      throw notAllowedHere(c.req.method, allowed);
    });
  }
}

/** Bodies over `maxSize` are refused while streaming, before they are buffered. */
function bodyLimitOf(maxSize: number, advice: string): MiddlewareHandler<AppEnv> {
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw invalidRequest("The request body is too large.", {
        status: 413,
        hint: `${advice}: at most ${maxSize} bytes are accepted.`,
      });
    },
  });
  return async (c, next) => {
    let reachedHandler = false;
    try {
      await limit(c, () => (reachedHandler = true, next()));
    } catch (error) {
      // A chunked body is read here: broken framing or a client gone mid-body is its fault.
      if (reachedHandler || error instanceof ApiError) throw error;
      throw unreadableBody();
    }
  };
}

function toApiError(err: unknown, deps: AppDeps, requestId: string): ApiError {
  if (err instanceof ApiError) return err;
  // A typed failure thrown outside a capture (an option checked up front) maps the same way.
  const typed = typedFailureError(err);
  if (typed) return typed;
  if (err instanceof HTTPException) {
    if (err.status === 415) {
      return invalidRequest("Unsupported Content-Type for this operation.", {
        hint: "Send the body with the content type listed in /openapi.json.",
      });
    }
    if (err.status < 500) {
      // Framework-level client errors (malformed JSON or form data): the message is safe to show.
      return invalidRequest(err.message || "The request is malformed.");
    }
  }
  deps.log.error("unhandled error", { requestId, error: err });
  return internalError("The service failed unexpectedly.");
}
