import { StreamableHTTPTransport } from "@hono/mcp";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../lib/http/app_env.ts";
import { baseUrlOf } from "../lib/http/error_response.ts";
import { requestBytes } from "../lib/http/request_bytes.ts";
import { createRouter } from "../lib/http/router.ts";
import { documentBuilder } from "../lib/discovery/openapi_document.ts";
import { boundAnswers } from "../lib/mcp/answer_budget.ts";
import { admitMessages } from "../lib/mcp/batch.ts";
import { judgeHeaders } from "../lib/mcp/headers.ts";
import { runTool } from "../lib/mcp/call.ts";
import { createMcpServer } from "../lib/mcp/server.ts";
import { SERVICE_TITLE } from "../lib/discovery/openapi_document.ts";
import { MCP_PATH, type McpTool, mcpToolsOf } from "../lib/mcp/tools.ts";

/**
 * POST /mcp: the Streamable HTTP transport of the Model Context Protocol, stateless, answering
 * each POST with one JSON body (our tools send no progress, so a stream would only hold the
 * connection). GET (the server-to-client stream) and DELETE (session end) have nothing to do
 * without sessions: they answer 405, as the transport allows. Each tool call runs its HTTP
 * operation in process through `getApp()`, with this request's connection and client-IP headers.
 */
export function createMcpRouter(getApp: () => OpenAPIHono<AppEnv>) {
  const documentFor = documentBuilder(getApp);
  let tools: McpTool[] | undefined;
  return createRouter().post(MCP_PATH, async (c) => {
    const { exporter, log, config, captureLinks } = c.var.deps;
    const baseUrl = baseUrlOf(c);
    // The request's own Host is no proof (a rebound name is the attacker's own origin): only
    // PUBLIC_BASE_URL's origin is the service's.
    const own = config.PUBLIC_BASE_URL ? [config.PUBLIC_BASE_URL] : [];
    const refusal = judgeHeaders(
      { origin: c.req.header("Origin"), protocolVersion: c.req.header("MCP-Protocol-Version") },
      { own, allowed: config.MCP_ALLOWED_ORIGINS },
    );
    if (refusal) return c.json(refusal.body, refusal.status);
    // Routes are fixed once the app is built: the tools (from /openapi.json) are too.
    tools ??= mcpToolsOf(documentFor(baseUrl));
    const forwarded = c.req.header("X-Forwarded-For");
    const called: string[] = [];
    const viewDefaults = {
      limits: { maxSide: config.MCP_IMAGE_MAX_SIDE, maxPixels: config.MCP_IMAGE_MAX_PIXELS },
      maxTiles: config.MCP_MAX_TILES,
    };
    const service = { title: SERVICE_TITLE, tools, links: captureLinks };
    const server = createMcpServer(service, (tool, args) => {
      called.push(tool.name);
      return runTool(tool, args, {
        // The client's connection info (c.env) goes along: the limiter sees the same client.
        fetch: (request) => getApp().fetch(request, c.env),
        origin: new URL(c.req.url).origin,
        baseUrl,
        headers: {
          "X-Request-Id": c.var.requestId,
          ...(forwarded ? { "X-Forwarded-For": forwarded } : {}),
        },
        exporter,
        links: captureLinks,
        viewDefaults,
        log,
        requestId: c.var.requestId,
        signal: c.req.raw.signal,
      });
    });
    // A JSON body is parsed here, once, after the batch and size checks (lib/mcp/batch.ts);
    // other content types go to the transport as they are, which refuses them with 415.
    let messages: unknown;
    if (c.req.header("Content-Type")?.includes("application/json")) {
      const bytes = await requestBytes(c);
      const admission = admitMessages(bytes, c.req.header("MCP-Protocol-Version"));
      if (!admission.ok) return c.json(admission.refusal.body, admission.refusal.status);
      messages = admission.messages;
    }
    const transport = boundAnswers(new StreamableHTTPTransport({ enableJsonResponse: true }));
    await server.connect(transport);
    try {
      return await transport.handleRequest(c, messages) ?? c.body(null, 202);
    } catch (error) {
      // The transport's refusals (bad JSON, not JSON-RPC, wrong Accept) carry the protocol's
      // own JSON-RPC error body; the app's error envelope would hide it from MCP clients.
      if (error instanceof HTTPException) return error.getResponse();
      throw error;
    } finally {
      if (called.length) c.var.logFields.tools = called;
      await server.close();
    }
  });
}
