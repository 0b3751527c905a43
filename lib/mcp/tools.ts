/**
 * The MCP tools of /mcp, each an HTTP operation of the OpenAPI document: its input schema is the
 * operation's request schema as the document publishes it (generated from the zod schema that
 * validates the route), so a field added to the route appears in the tool with no edit here.
 */
import {
  type OpenApiDocument,
  type OperationObject,
  operationsOf,
  resolveSchema,
  type SchemaObject,
} from "../discovery/openapi_document.ts";
import { fieldsUnusedBy } from "../capture/request/output_checks.ts";
import { outputSchemaOf, type ToolKind } from "./output_schemas.ts";

export type { ToolKind };
import { viewArgumentSchemas } from "./view_arguments.ts";
import { MAX_WAIT_SECONDS, waitArgumentSchemas } from "./job_schemas.ts";

/** Path of the MCP endpoint. */
export const MCP_PATH = "/mcp";

/** How a tool's arguments travel to its operation. */
export type ArgumentCarrier = "json" | "multipart" | "path";

/** One tool, with the operation it runs. */
export interface McpTool {
  name: string;
  title: string;
  kind: ToolKind;
  /** How the tool answers over MCP (one line of prose with `code spans`). */
  answer: string;
  /** For the model: `answer`, then the operation's own summary and description. */
  description: string;
  operationId: string;
  method: string;
  /** OpenAPI path template, e.g. /api/post/{id}. */
  path: string;
  carrier: ArgumentCarrier;
  /** JSON Schema (2020-12) of the arguments: an object, with no $ref left. */
  inputSchema: SchemaObject & { type: "object" };
  /** JSON Schema of the result's structuredContent (also its JSON text item). */
  outputSchema: SchemaObject & { type: "object" };
  /** Arguments the tool always sends its operation (read_page's format). */
  fixedArguments: Record<string, unknown>;
  /** MCP's behaviour hints (only start_capture_job writes: a new job, nothing destroyed). */
  annotations: ToolAnnotations;
}

/** MCP's behaviour hints of a tool. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  /** Said only of a tool that writes: none of ours overwrites or deletes anything. */
  destructiveHint?: false;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

interface ToolEntry {
  name: string;
  operationId: string;
  title: string;
  kind: ToolKind;
  answer: string;
  /** Operation fields the tool does not take (fixed or of no use to it). */
  omitted?: readonly string[];
  fixedArguments?: Record<string, unknown>;
  annotations: McpTool["annotations"];
}

/** The capture fields the page's text has no use for: what read_page leaves out of a capture. */
export const TEXT_UNUSED: readonly string[] = ["format", "frame", ...fieldsUnusedBy("text")];

// A live page: the next render may differ; it reaches the open web.
const LIVE_PAGE = { readOnlyHint: true, idempotentHint: false, openWorldHint: true } as const;

/** The tools and what each says about its answer; the rest comes from the operation. */
const TOOLS: readonly ToolEntry[] = [
  {
    name: "capture_screenshot",
    operationId: "captureScreenshot",
    title: "Capture a web page",
    kind: "capture",
    answer: "Answers with the JSON of the HTTP operation without the image (url, cached, " +
      "width, height, httpStatus, truncated, and a `report` of what happened: timings, console " +
      "errors, failed requests, and findings such as a bot check or a consent wall with a hint " +
      "to retry), also as structured content. Then the image: itself when within `imageLimits` " +
      "(1568 px, 1.15 MP by default); larger, an overview and full-resolution tiles in reading " +
      "order, each after a text giving its position in the capture's pixels (`view`, `tile`, " +
      "`region` choose others). Last, a `resource_link` to the exact capture, readable with " +
      "resources/read or over HTTP without a session for a while. A PDF or a recording " +
      "(format pdf, mp4, webm, gif) comes as an embedded resource item; markdown or html as a " +
      "text item. Counts against the same per-IP limit as the HTTP operation.",
    annotations: LIVE_PAGE,
  },
  {
    name: "read_page",
    operationId: "captureScreenshot",
    title: "Read a web page as Markdown",
    kind: "read",
    answer: "Answers with the page's readable content as Markdown (the capture operation's " +
      "format markdown: same device, colour scheme, cookies and headers, waits, scripts and " +
      "blocking), then the JSON of the operation without it (url, cached, httpStatus, report), " +
      "also as structured content. Counts against the same per-IP limit as a capture.",
    omitted: TEXT_UNUSED,
    fixedArguments: { format: "markdown" },
    annotations: LIVE_PAGE,
  },
  {
    name: "start_capture_job",
    operationId: "submitCaptureJob",
    title: "Start a batch of captures",
    kind: "start-job",
    answer: "Answers at once, without waiting for any capture, with the accepted job (id, " +
      "status, total, links, expiresAt) as JSON text and structured content, and what to call " +
      "next: `get_capture_job` with the id. Each item counts against the same per-IP limit as " +
      "a capture when it starts (a job past the allowance is paced, not refused).",
    // A new job each call, nothing overwritten; its captures reach the open web.
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
  {
    name: "get_capture_job",
    operationId: "getCaptureJob",
    title: "Read a capture job",
    kind: "job",
    answer: "Answers with the job compactly (status, counts, and per item its status, url, " +
      "`imageUrl`, content type and size, or its error's code and message) as JSON text and " +
      "structured content, a text saying where it stands, and a `resource_link` per done " +
      "item to its file (GET it over HTTP, no session needed, until `expiresAt`): never the " +
      `files themselves. With \`waitSeconds\` (up to ${MAX_WAIT_SECONDS}) it waits for the ` +
      "job to finish first. Counts against no limit.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: "get_post",
    operationId: "getPost",
    title: "Resolve a social-network post",
    kind: "json",
    answer: "Answers with the post payload ({ data }) as JSON text and structured content.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
  {
    name: "export_image",
    operationId: "optimizeExportImage",
    title: "Recompress an image",
    kind: "export",
    answer: "Pass the image as base64 in `image` (a data: URI is accepted). Answers with " +
      "the recompressed image as an image item and a text item with its type and sizes (also " +
      "as structured content).",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
];

/** The tools whose operation `document` has, in the order of TOOLS. */
export function mcpToolsOf(document: OpenApiDocument): McpTool[] {
  const operations = operationsOf(document);
  return TOOLS.flatMap((tool) => {
    const op = operations.find((o) => o.operation.operationId === tool.operationId);
    if (!op) return [];
    const { carrier, inputSchema } = inputOf(document, op.operation);
    const intro = [op.operation.summary, op.operation.description].filter(Boolean).join(". ");
    return [{
      name: tool.name,
      title: tool.title,
      kind: tool.kind,
      answer: tool.answer,
      description: `${tool.answer}\n\nIt runs \`${op.method} ${op.path}\`: ${intro}`,
      operationId: tool.operationId,
      method: op.method,
      path: op.path,
      carrier,
      inputSchema: argumentsOf(tool, inputSchema),
      outputSchema: outputSchemaOf(tool.kind, answerSchemaOf(document, op.operation)),
      fixedArguments: tool.fixedArguments ?? {},
      annotations: tool.annotations,
    }];
  });
}

/** The operation's request schema, less what the tool omits, plus the capture's view. */
function argumentsOf(tool: ToolEntry, schema: SchemaObject & { type: "object" }) {
  const properties = { ...schema.properties };
  for (const name of tool.omitted ?? []) delete properties[name];
  if (tool.kind === "capture") Object.assign(properties, viewArgumentSchemas());
  if (tool.kind === "job") Object.assign(properties, waitArgumentSchemas());
  const required = schema.required?.filter((name) => name in properties);
  return { ...schema, properties, ...(required ? { required } : {}) };
}

/**
 * The JSON schema of the operation's success (200, or another 2xx such as a job's 202),
 * inlined; undefined for a binary answer.
 */
function answerSchemaOf(document: OpenApiDocument, operation: OperationObject) {
  const statuses = Object.keys(operation.responses ?? {}).filter((s) => s.startsWith("2"));
  const success = operation.responses[statuses.includes("200") ? "200" : statuses[0]];
  const json = success?.content?.["application/json"];
  return json?.schema ? inline(document, json.schema) : undefined;
}

function inputOf(document: OpenApiDocument, operation: OperationObject) {
  const content = operation.requestBody?.content ?? {};
  const json = content["application/json"];
  if (json) {
    return { carrier: "json" as const, inputSchema: asObject(inline(document, json.schema)) };
  }
  const multipart = content["multipart/form-data"];
  if (multipart) {
    const schema = asObject(inline(document, multipart.schema));
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      if (field.format !== "binary") continue;
      // A tool argument is JSON: the file travels as base64 text.
      schema.properties![name] = {
        type: "string",
        contentEncoding: "base64",
        description: `${field.description ?? "The file"} Base64-encoded; a data: URI is accepted.`,
      };
    }
    return { carrier: "multipart" as const, inputSchema: schema };
  }
  const properties: Record<string, SchemaObject> = {};
  const required: string[] = [];
  for (const p of operation.parameters ?? []) {
    if (p.in !== "path") continue;
    const schema = inline(document, p.schema ?? { type: "string" });
    properties[p.name] = { ...schema, ...(p.description ? { description: p.description } : {}) };
    required.push(p.name);
  }
  return { carrier: "path" as const, inputSchema: asObject({ properties, required }) };
}

function asObject(schema: SchemaObject): SchemaObject & { type: "object" } {
  return { ...schema, type: "object" };
}

/**
 * `schema` with every local $ref replaced by its component and OpenAPI's `example` turned into
 * JSON Schema's `examples`, so a client needs nothing but the tool entry. Deep copy: the cached
 * document is never changed.
 */
export function inline(document: OpenApiDocument, schema: SchemaObject, depth = 0): SchemaObject {
  // Our schemas nest a few levels; a cycle would be a bug in a schema, not a reason to hang.
  if (depth > 16) throw new Error("schema nests too deeply to inline");
  const resolved = resolveSchema(document, schema);
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(resolved)) {
    if (key === "$ref") continue;
    if (key === "example") {
      if (resolved.examples === undefined) out.examples = [structuredClone(value)];
    } else if (DATA_KEYWORDS.has(key)) {
      out[key] = structuredClone(value);
    } else if (MAP_KEYWORDS.has(key)) {
      // Keys are field names (a field may well be called "default"), values are schemas.
      const entries = Object.entries(value as Record<string, SchemaObject>);
      out[key] = Object.fromEntries(entries.map(([k, v]) => [k, inline(document, v, depth + 1)]));
    } else {
      out[key] = copyValue(document, value, depth + 1);
    }
  }
  return out;
}

// Keywords whose values are instances, not schemas: copied as they are.
const DATA_KEYWORDS = new Set(["examples", "default", "enum", "const"]);
const MAP_KEYWORDS = new Set(["properties", "patternProperties", "$defs"]);

function copyValue(document: OpenApiDocument, value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return value.map((item) => copyValue(document, item, depth));
  if (value && typeof value === "object") return inline(document, value as SchemaObject, depth);
  return value;
}
