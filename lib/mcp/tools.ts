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

/** Path of the MCP endpoint. */
export const MCP_PATH = "/mcp";

/** How a tool's arguments travel to its operation. */
export type ArgumentCarrier = "json" | "multipart" | "path";

/** One tool, with the operation it runs. */
export interface McpTool {
  name: string;
  title: string;
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
  /** The JSON response field that holds the image as base64, when the answer carries one. */
  imageField?: string;
  /** MCP's behaviour hints: nothing here writes anything a client could see change. */
  annotations: { readOnlyHint: true; idempotentHint: boolean; openWorldHint: boolean };
}

/** The tools and what each says about its answer; the rest comes from the operation. */
const TOOLS = [
  {
    name: "capture_screenshot",
    operationId: "captureScreenshot",
    title: "Capture a web page",
    answer: "Answers with the capture as an image item and a text item holding the JSON of the " +
      "HTTP operation without the image (url, cached, age, width, height, httpStatus, " +
      "truncated...). An image too large for MCP clients is sent scaled down; the text says so " +
      "and how to fetch the full one over HTTP. A PDF or a recording (format pdf, mp4, webm, " +
      "gif) comes as an embedded resource item with its media type; markdown or html as a " +
      "text item holding the page's text, then the JSON. Counts against the same per-IP limit " +
      "as the HTTP operation.",
    imageField: "screenshot",
    // A live page: the next render may differ; it reaches the open web.
    annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: true },
  },
  {
    name: "get_post",
    operationId: "getPost",
    title: "Resolve a social-network post",
    answer: "Answers with the post payload ({ data }) as JSON text.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
  {
    name: "export_image",
    operationId: "optimizeExportImage",
    title: "Recompress an image",
    answer: "Pass the image as base64 in `image` (a data: URI prefix is accepted). Answers with " +
      "the recompressed image as an image item and a text item with its type and sizes.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
] as const;

export type McpToolName = typeof TOOLS[number]["name"];

/** The tool names, in the order tools/list gives them. */
export const MCP_TOOL_NAMES: readonly McpToolName[] = TOOLS.map((t) => t.name);

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
      answer: tool.answer,
      description: `${tool.answer}\n\nIt runs \`${op.method} ${op.path}\`: ${intro}`,
      operationId: tool.operationId,
      method: op.method,
      path: op.path,
      carrier,
      inputSchema,
      annotations: tool.annotations,
      ...("imageField" in tool ? { imageField: tool.imageField } : {}),
    }];
  });
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
function inline(document: OpenApiDocument, schema: SchemaObject, depth = 0): SchemaObject {
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
