/**
 * One tool call, run as the HTTP operation it stands for: the arguments become a request to the
 * app's own route (validation, boundary, per-IP limit, admission, cache and error envelope all
 * apply as over HTTP), and the route's answer becomes the tool result. A failed call is a result
 * with `isError: true` whose text is the envelope, never a protocol error.
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError, ERROR_CODES, type ErrorCode, errorEnvelope, internalError } from "../errors.ts";
import { invalidRequest } from "../errors.ts";
import { readImageInfo, sniffKind } from "../codecs/image_info.ts";
import { decodeBase64 } from "../http/base64.ts";
import { inProcessRequest } from "../http/in_process.ts";
import { sliceStream } from "../http/request_bytes.ts";
import { jsonBytes, LongString } from "../http/long_string.ts";
import { type FormField, multipartBody } from "../http/multipart_body.ts";
import { METRICS } from "../telemetry/metrics.ts";
import { outcomeOf, traced } from "../telemetry/trace.ts";
import { captureResult } from "./capture_result.ts";
import type { JobView } from "../jobs/views.ts";
import { acceptedJobResult, jobResult, waitForJob } from "./job_result.ts";
import { splitWaitArguments } from "./job_schemas.ts";
import type { ToolCallContext } from "./context.ts";
import {
  fullImageResult,
  jsonItem,
  structured,
  textItem,
  withoutIconBytes,
} from "./result_items.ts";
import type { McpTool } from "./tools.ts";
import { splitViewArguments } from "./view_arguments.ts";

export type { ToolCallContext };

/** A failed operation: its envelope as the route wrote it, kept whole for the tool result. */
class OperationFailed extends ApiError {
  constructor(readonly envelope: Record<string, unknown>) {
    super(envelope.status as 400, envelope.code as ErrorCode, String(envelope.message));
  }
}

/** Runs `tool` with `args`, traced and counted by outcome; failures are isError results. */
export async function runTool(
  tool: McpTool,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
): Promise<CallToolResult> {
  let outcome = "ok";
  try {
    return await traced("mcp.tool", { tool: tool.name }, () => callOperation(tool, args, ctx));
  } catch (error) {
    outcome = outcomeOf(error);
    return errorResult(error, ctx, tool);
  } finally {
    METRICS.mcpCalls.inc({ tool: tool.name, outcome });
  }
}

async function callOperation(
  tool: McpTool,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
): Promise<CallToolResult> {
  if (tool.kind === "capture") {
    const { view, rest } = splitViewArguments(args, ctx.viewDefaults);
    const respond = (args: Record<string, unknown>) => operationResponse(tool, args, ctx);
    return await captureResult(tool, { view, args: rest, respond }, ctx);
  }
  if (tool.kind === "job") {
    const { waitSeconds, rest } = splitWaitArguments(args);
    const read = async () => await (await operationResponse(tool, rest, ctx)).json() as JobView;
    return jobResult(await waitForJob(read, { seconds: waitSeconds, signal: ctx.signal }));
  }
  const response = await operationResponse(tool, { ...args, ...tool.fixedArguments }, ctx);
  if (tool.kind === "export") {
    const bytes = new Uint8Array(await response.arrayBuffer());
    const type = response.headers.get("content-type") ?? "";
    if (!type.startsWith("image/")) throw new Error(`operation answered ${type}, not an image`);
    const info = readImageInfo(sniffKind(bytes) ?? "png", bytes);
    const about = {
      contentType: type,
      bytes: bytes.length,
      width: info?.width,
      height: info?.height,
    };
    return await fullImageResult(tool, { bytes, about }, ctx);
  }
  const body = await response.json();
  if (tool.kind === "json") return structured(body, [jsonItem(body)]);
  if (tool.kind === "start-job") return acceptedJobResult(body);
  // read_page: the page's text, then what it is.
  const { content, screenshot: _, ...rest } = body;
  const about = withoutIconBytes(rest);
  return structured(about, [textItem(String(content)), jsonItem(about)]);
}

/** The operation's answer to `args`; a failure is thrown with the route's envelope. */
async function operationResponse(
  tool: McpTool,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
): Promise<Response> {
  const response = await ctx.fetch(await operationRequest(tool, args, ctx));
  if (!response.ok) throw new OperationFailed(await envelopeOf(response));
  return response;
}
/** The request to the tool's operation; a malformed argument is the operation's 400. */
async function operationRequest(
  tool: McpTool,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
): Promise<Request> {
  const headers = new Headers(ctx.headers);
  let path = tool.path;
  let bytes: Uint8Array | undefined;
  if (tool.carrier === "json") {
    // JSON, whatever raw-bytes answer the operation may offer through Accept.
    headers.set("Accept", "application/json");
    headers.set("Content-Type", "application/json");
    bytes = await jsonBytes(args);
  } else if (tool.carrier === "path") {
    path = tool.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = args[name];
      if (value === undefined || value === null || value === "") {
        throw invalidRequest(`${name} is required.`, {
          hint: `Pass ${name} in the tool's arguments; tools/list gives its schema.`,
        });
      }
      return encodeURIComponent(String(value));
    });
  } else {
    const form = await multipartBody(await formFields(tool, args));
    headers.set("Content-Type", form.contentType);
    bytes = form.body;
  }
  if (bytes) headers.set("Content-Length", String(bytes.byteLength));
  // Streamed in slices of the same memory: a Request given the buffer itself would copy it whole.
  const body = bytes ? sliceStream(bytes) : undefined;
  const init = { method: tool.method, headers, body, signal: ctx.signal };
  return inProcessRequest(`${ctx.origin}${path}`, init, { tool: tool.name });
}

/** The form's parts: base64 arguments (the schema's contentEncoding) decoded to file parts. */
async function formFields(tool: McpTool, args: Record<string, unknown>): Promise<FormField[]> {
  const fields: FormField[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (tool.inputSchema.properties?.[name]?.contentEncoding !== "base64") {
      const text = typeof value === "string" || value instanceof LongString
        ? String(value)
        : JSON.stringify(value);
      fields.push({ name, value: text });
      continue;
    }
    const bytes = typeof value === "string" || value instanceof LongString
      ? await decodeBase64(value)
      : null;
    if (!bytes) {
      throw invalidRequest(`${name} must be a base64-encoded file.`, {
        hint: `Send ${name} as standard base64 text (a data: URI is accepted).`,
      });
    }
    fields.push({ name, value: bytes, filename: name });
  }
  return fields;
}

/** The envelope of a failed operation, as the route wrote it. */
async function envelopeOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    if (ERROR_CODES.includes(body?.code) && typeof body.status === "number") return body;
  } catch {
    // Every route answers failures with the envelope; anything else is handled below.
  }
  throw new Error(`operation answered ${response.status} without an error envelope`);
}

function errorResult(error: unknown, ctx: ToolCallContext, tool: McpTool): CallToolResult {
  let envelope: Record<string, unknown>;
  if (error instanceof OperationFailed) {
    envelope = error.envelope;
  } else {
    // A client that went away needs no log line; anything else unexpected does.
    if (!(error instanceof ApiError) && outcomeOf(error) !== "aborted") {
      ctx.log.error("mcp tool failed", { requestId: ctx.requestId, tool: tool.name, error });
    }
    const known = error instanceof ApiError
      ? error
      : internalError("The service failed unexpectedly.");
    envelope = errorEnvelope(known, ctx.baseUrl);
  }
  return { isError: true, content: [{ type: "text", text: JSON.stringify(envelope) }] };
}
