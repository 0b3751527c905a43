/**
 * The MCP server of one /mcp request: its tools, and the captures they kept as resources. Stateless: a new server and transport per HTTP request,
 * no session id, so any instance can answer any request. The SDK's low-level Server is used
 * (not McpServer): McpServer validates arguments against a zod schema itself and answers a bad
 * argument with its own message, where ours go to the operation, which answers with the
 * service's error envelope.
 */
// The SDK's export map gives types only to extension-less paths, code only to ".js" ones.
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpTool } from "./tools.ts";
import type { CaptureLinks } from "../capture/links.ts";
import { serveKeptCaptures } from "./resources.ts";

/** Runs one call of a listed tool; a failed call resolves to an isError result. */
export type ToolRunner = (tool: McpTool, args: Record<string, unknown>) => Promise<CallToolResult>;

/** Told to every client at initialisation: what the tools share. */
export const MCP_INSTRUCTIONS = "Shotline's HTTP operations as tools. A failed call is a result " +
  "with isError true whose text is the JSON error envelope (code, message, hint, status): " +
  "branch on code and follow the hint. capture_screenshot and read_page share the per-IP " +
  "capture limit with POST /api/screenshot. A long page comes as an overview and tiles at " +
  "full resolution; the exact capture is a resource_link (resources/read, or its HTTP URL). " +
  "Each capture's report names what may have gone wrong (a bot check, a consent wall, a " +
  "blank page) and how to retry. For many pages at once, start_capture_job queues up to 100 " +
  "captures and answers at once with a job id; get_capture_job reads the job (waitSeconds " +
  "waits for it to finish) with a resource_link per done file, fetched over HTTP.";

/** A server listing `tools` and running their calls with `run`. */
export function createMcpServer(
  service: { title: string; tools: McpTool[]; links: CaptureLinks },
  run: ToolRunner,
): Server {
  const { tools } = service;
  const server = new Server(
    { name: "shotline", title: service.title, version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: false, listChanged: false },
      },
      instructions: MCP_INSTRUCTIONS,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      outputSchema,
      annotations,
    })),
  }));
  serveKeptCaptures(server, service.links);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((t) => t.name === request.params.name);
    // An unknown tool is the protocol's error (JSON-RPC's invalid params, -32602, as the MCP specification answers it), not a tool result.
    if (!tool) {
      const names = tools.map((t) => t.name).join(", ");
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}. Tools: ${names}.`,
      );
    }
    return await run(tool, request.params.arguments ?? {});
  });
  return server;
}
