import { MCP_PATH, mcpToolsOf } from "./tools.ts";
import type { OpenApiDocument } from "../discovery/openapi_document.ts";
import { fieldsOf } from "../discovery/reference.ts";
import type { McpRef } from "../discovery/reference_types.ts";

/**
 * The MCP section of the reference (/llms.txt, /llms-full.txt, /docs): the endpoint, the tools
 * `document` gives (each with the operation it runs and its arguments), and how a client adds it.
 */
export function mcpReferenceOf(document: OpenApiDocument, baseUrl: string): McpRef {
  const url = `${baseUrl}${MCP_PATH}`;
  const config = { mcpServers: { shotline: { type: "http", url } } };
  return {
    url,
    about: `A Model Context Protocol server at \`${url}\`: Streamable HTTP, stateless (no ` +
      "session), one JSON answer per POST; JSON-RPC batches only for clients before MCP " +
      "2025-06-18, at most 20 messages (past that, or under 2025-06-18 and later, -32600). " +
      "Each tool runs its " +
      "HTTP operation with the same validation, limits and cache, and answers with structured " +
      "content valid against its outputSchema. A long capture comes as an overview and " +
      "full-resolution tiles within what models read sharply (1568 px, 1.15 MP), with a " +
      "`resource_link` to the exact capture (resources/read, or GET /api/captures/{id}). " +
      "`start_capture_job` queues up to 100 captures and answers at once; `get_capture_job` " +
      "reads the job (waiting up to 60 s with `waitSeconds`) with a `resource_link` per done " +
      "file (GET /api/jobs/{id}/items/{n}), never the files inline. A " +
      "failed call is a result with `isError: true` whose text is the error envelope; a " +
      "malformed JSON-RPC message gets the protocol's error. A browser page's Origin must be " +
      "the service's own or listed in MCP_ALLOWED_ORIGINS (403 otherwise).",
    tools: mcpToolsOf(document).map((tool) => ({
      name: tool.name,
      title: tool.title,
      answer: tool.answer,
      operation: { method: tool.method, path: tool.path, anchor: `op-${tool.operationId}` },
      arguments: fieldsOf(document, tool.inputSchema)
        .map((f) => `\`${f.name}\` (${f.type}${f.required ? ", required" : ""})`).join(", "),
    })),
    setup: [
      {
        label: "Claude Code:",
        code: `claude mcp add --transport http shotline ${url}`,
      },
      {
        label: "A configuration file: a project's `.mcp.json` (Claude Code), Cursor's " +
          "`mcp.json` and the like; VS Code's `mcp.json` names the key `servers`:",
        code: JSON.stringify(config, null, 2),
      },
    ],
  };
}
