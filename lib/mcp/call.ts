/**
 * One tool call, run as the HTTP operation it stands for: the arguments become a request to the
 * app's own route (validation, boundary, per-IP limit, admission, cache and error envelope all
 * apply as over HTTP), and the route's answer becomes the tool result. A failed call is a result
 * with `isError: true` whose text is the envelope, never a protocol error.
 */
import { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError, ERROR_CODES, type ErrorCode, errorEnvelope, internalError } from "../errors.ts";
import { invalidRequest } from "../errors.ts";
import type { ImageExporter } from "../codecs/exporter.ts";
import { fitImage, type FitLimits, type FittedImage } from "../codecs/fit.ts";
import { readImageInfo, sniffKind } from "../codecs/image_info.ts";
import { CONTENT_TYPES } from "../codecs/presets.ts";
import { decodeBase64 } from "../http/base64.ts";
import { OUTPUT_MEDIA_TYPES, type OutputFormat } from "../capture/request/output.ts";
import { inProcessRequest } from "../http/in_process.ts";
import { sliceStream } from "../http/request_bytes.ts";
import { jsonBytes, LongString } from "../http/long_string.ts";
import { type FormField, multipartBody } from "../http/multipart_body.ts";
import type { Logger } from "../log.ts";
import { METRICS } from "../telemetry/metrics.ts";
import { outcomeOf, traced } from "../telemetry/trace.ts";
import type { McpTool } from "./tools.ts";

/**
 * The strictest image limits among common MCP clients: Anthropic's API refuses an image with a
 * side over 8000 px or more than 5 MB of base64; OpenAI's and Google's take more.
 */
export const CLIENT_IMAGE_LIMITS: FitLimits = { maxSide: 8000, maxBase64Bytes: 5 * 1024 * 1024 };

export interface ToolCallContext {
  /** The app's own fetch, with the connection info of the client's request. */
  fetch(request: Request): Response | Promise<Response>;
  /** Origin the in-process requests go to: the client's request's, so links stay the same. */
  origin: string;
  /** Base URL for the links of an answer (PUBLIC_BASE_URL or the origin). */
  baseUrl: string;
  /** Headers of the client's request the operation must see (client IP chain, request id). */
  headers: Record<string, string>;
  exporter: ImageExporter;
  log: Logger;
  requestId: string;
  /** Aborted when the client goes away; the operation is cancelled with it. */
  signal: AbortSignal;
}

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
  const response = await ctx.fetch(await operationRequest(tool, args, ctx));
  if (!response.ok) throw new OperationFailed(await envelopeOf(response));
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("image/")) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    const info = readImageInfo(sniffKind(bytes) ?? "png", bytes);
    const about = {
      contentType: type,
      bytes: bytes.length,
      width: info?.width,
      height: info?.height,
    };
    return await imageResult(tool, bytes, about, ctx);
  }
  if (!tool.imageField) return { content: [{ type: "text", text: await response.text() }] };
  const { [tool.imageField]: image, content, ...rest } = await response.json();
  const about = withoutIconBytes(rest);
  // The page's text (format markdown or html): the text itself, then what it is.
  if (typeof content === "string") return textResult(content, about);
  if (typeof image !== "string") throw new Error(`operation answered without ${tool.imageField}`);
  const mimeType = OUTPUT_MEDIA_TYPES[rest.format as OutputFormat];
  // A PDF or a recording: an embedded resource, which clients save or show as a file.
  if (rest.format === "gif" || (mimeType !== undefined && !mimeType.startsWith("image/"))) {
    return documentResult({ blob: image, mimeType, about });
  }
  return await imageResult(tool, Buffer.from(image, "base64"), about, ctx, image);
}

function textResult(text: string, about: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text }, { type: "text", text: JSON.stringify(about) }],
  };
}

/** A capture that is a file rather than a picture, named by the page it was taken of. */
function documentResult(
  document: { blob: string; mimeType: string; about: Record<string, unknown> },
): CallToolResult {
  const { blob, mimeType, about } = document;
  const uri = `shotline://capture/${encodeURIComponent(String(about.url))}.${about.format}`;
  return {
    content: [
      { type: "resource", resource: { uri, mimeType, blob } },
      { type: "text", text: JSON.stringify(about) },
    ],
  };
}

/**
 * The answer's text without the favicon's bytes: kilobytes of base64 a model reads as noise (an
 * editor drawing the icon calls the HTTP operation). Its URL stays.
 */
function withoutIconBytes(about: Record<string, unknown>): Record<string, unknown> {
  const page = about.page;
  if (typeof page !== "object" || page === null || !("faviconData" in page)) return about;
  const { faviconData: _, ...rest } = page as Record<string, unknown>;
  return { ...about, page: rest };
}

/** The image item (scaled when clients could not take it) and the JSON text about it. */
async function imageResult(
  tool: McpTool,
  bytes: Uint8Array,
  about: Record<string, unknown>,
  ctx: ToolCallContext,
  /** `bytes` as base64 when the operation sent them so: sent on as they are if they fit. */
  base64?: string,
): Promise<CallToolResult> {
  const kind = sniffKind(bytes);
  if (!kind) throw new Error("the operation answered with something that is not an image");
  const fitted = await fitImage(bytes, { limits: CLIENT_IMAGE_LIMITS, exporter: ctx.exporter });
  const data = fitted
    ? Buffer.from(fitted.bytes).toString("base64")
    : base64 ?? Buffer.from(bytes).toString("base64");
  const mimeType = fitted?.contentType ?? CONTENT_TYPES[kind];
  const scaled = fitted ? scaledFacts(fitted) : undefined;
  return {
    content: [
      { type: "image", data, mimeType },
      { type: "text", text: JSON.stringify({ ...about, ...(scaled ? { scaled } : {}) }) },
      ...(fitted ? [{ type: "text" as const, text: scaledNote(tool, bytes, fitted, ctx) }] : []),
    ],
  };
}

function scaledFacts(fitted: FittedImage) {
  const { width, height, contentType, bytes } = fitted;
  return { width, height, contentType, bytes: bytes.length };
}

function scaledNote(
  tool: McpTool,
  original: Uint8Array,
  fitted: FittedImage,
  ctx: ToolCallContext,
) {
  const info = readImageInfo(sniffKind(original) ?? "png", original);
  const size = info ? `${info.width}x${info.height}, ` : "";
  const { maxSide, maxBase64Bytes } = CLIENT_IMAGE_LIMITS;
  const how = tool.carrier === "multipart"
    ? "as multipart/form-data with the image as a file"
    : "with the same arguments as its JSON body";
  return `Scaled down: the image is ${size}${original.length} bytes, more than MCP clients ` +
    `take (${maxSide} px a side, ${maxBase64Bytes} bytes of base64), so it is sent at ` +
    `${fitted.width}x${fitted.height} as ${fitted.format.toUpperCase()}. The full image: ` +
    `${tool.method} ${ctx.baseUrl}${tool.path} ${how}.`;
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
