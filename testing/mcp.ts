/**
 * An app served on a loopback port with the MCP SDK's own client (StreamableHTTPClientTransport)
 * connected to its /mcp, and readers for what the tools answer.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ErrorCode } from "../lib/errors.ts";
import { assertEnvelope } from "./envelope.ts";

type ServedApp = {
  fetch(request: Request, info: Deno.ServeHandlerInfo): Response | Promise<Response>;
  request(path: string, init?: RequestInit): Response | Promise<Response>;
};

export interface McpSession extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`: plain HTTP to the same app, from the same client address. */
  base: string;
  /** Another SDK client on the same server, sending `headers` with every request. */
  connect(headers?: Record<string, string>): Promise<Client>;
  client: Client;
  call(name: string, args: Record<string, unknown>, client?: Client): Promise<CallToolResult>;
}

/** An SDK client connected to the MCP endpoint at `url`, sending `headers` with every request. */
export async function connectMcp(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: "shotline-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

/** Serves `app` on 127.0.0.1 and connects an SDK client to /mcp (with `headers`, if given). */
export async function mcpSession(
  app: ServedApp,
  headers: Record<string, string> = {},
): Promise<McpSession> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const clients: Client[] = [];
  const connect = async (extra: Record<string, string> = {}) => {
    const client = await connectMcp(`${base}/mcp`, { ...headers, ...extra });
    clients.push(client);
    return client;
  };
  const client = await connect();
  return {
    base,
    client,
    connect,
    call: async (name, args, other = client) =>
      await other.callTool({ name, arguments: args }) as CallToolResult,
    async [Symbol.asyncDispose]() {
      for (const c of clients) await c.close();
      await server.shutdown();
    },
  };
}

/** The text items of a result, in order. */
export function textsOf(result: CallToolResult): string[] {
  return result.content.flatMap((item) => item.type === "text" ? [item.text] : []);
}

/** The one image item of a successful result: its MIME type and decoded bytes. */
export function imageOf(result: CallToolResult): { mimeType: string; bytes: Uint8Array } {
  assert.notEqual(result.isError, true, textsOf(result).join("\n"));
  const images = result.content.flatMap((item) => item.type === "image" ? [item] : []);
  assert.equal(images.length, 1, "one image item");
  const { mimeType, data } = images[0];
  return { mimeType, bytes: Uint8Array.from(atob(data), (c) => c.charCodeAt(0)) };
}

/**
 * Asserts `result` is an isError result whose text is the error envelope with `status` and
 * `code`, valid against the schema the app publishes; returns the envelope.
 */
export async function assertToolError(
  app: ServedApp,
  result: CallToolResult,
  status: number,
  code: ErrorCode,
): Promise<Record<string, unknown>> {
  assert.equal(result.isError, true, `isError (content: ${JSON.stringify(result.content)})`);
  const texts = textsOf(result);
  assert.equal(texts.length, 1, "one text item");
  const response = new Response(texts[0], {
    status,
    headers: { "content-type": "application/json" },
  });
  return await assertEnvelope(app, response, status, code);
}
