import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/app_env.ts";

/** The parts of an OpenAPI 3.1 document the reference model (reference.ts) reads. */
export interface SchemaObject {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  example?: unknown;
  pattern?: string;
  maxLength?: number;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  $ref?: string;
  [extension: string]: unknown;
}

export interface OperationObject {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<
    { name: string; in: string; required?: boolean; schema?: SchemaObject; description?: string }
  >;
  requestBody?: { content: Record<string, { schema: SchemaObject }>; required?: boolean };
  responses: Record<string, ResponseObject>;
  /** Requests the service sends back: by name, then URL expression, then method. */
  callbacks?: Record<string, Record<string, Record<string, CallbackOperation>>>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, { schema?: SchemaObject; description?: string }>;
  content?: Record<string, { schema: SchemaObject }>;
}

/** An operation of a callback: what the service sends to the client's URL. */
export type CallbackOperation = Pick<
  OperationObject,
  "summary" | "description" | "requestBody" | "responses"
>;

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, SchemaObject> };
  [key: string]: unknown;
}

export const SERVICE_TITLE = "Shotline API";
export const SERVICE_SUMMARY =
  "Shotline is the server side of a browser-based screenshot editor. It captures live web " +
  "pages as PNG (or JPEG, WebP, a PDF, a scrolling MP4, WebM or GIF, or the page's text as " +
  "Markdown), re-encodes images to PNG, JPEG or WebP at a quality preset, resolves public " +
  "posts by id and streams their media through its own origin so a canvas stays untainted. " +
  "Every operation is anonymous; captures are limited per client IP; every failure is one " +
  "JSON error envelope with a stable code.";

/** Builds the document once (routes are fixed after createApp) and stamps `servers` per base. */
export function documentBuilder(getApp: () => OpenAPIHono<AppEnv>) {
  let cached: OpenApiDocument | null = null;
  return (baseUrl: string): OpenApiDocument => {
    cached ??= getApp().getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: SERVICE_TITLE, version: "1.0.0", description: SERVICE_SUMMARY },
      security: [],
      tags: [
        { name: "Capture", description: "Screenshots of live pages." },
        {
          name: "Jobs",
          description: "Up to 100 captures run in the background: submit, then poll the job or " +
            "take its signed webhook, and read each result's bytes by link.",
        },
        { name: "Export", description: "Re-encoding of images." },
        {
          name: "Frame",
          description: "Finished pictures: an image on a background, in a window or a device.",
        },
        { name: "Posts", description: "Public posts and their media." },
        { name: "Discovery", description: "Machine-readable descriptions of this API." },
      ],
    }) as unknown as OpenApiDocument;
    return { ...cached, servers: [{ url: baseUrl }] };
  };
}

/** Every operation in path order, with its method and path. */
export function operationsOf(document: OpenApiDocument) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      path,
      method: method.toUpperCase(),
      operation,
    }))
  );
}

/** Resolves a local `$ref` (#/components/schemas/X) to its schema. */
export function resolveSchema(document: OpenApiDocument, schema: SchemaObject): SchemaObject {
  if (!schema.$ref) return schema;
  const name = schema.$ref.split("/").pop()!;
  return document.components?.schemas?.[name] ?? schema;
}
