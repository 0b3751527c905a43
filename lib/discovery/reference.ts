import { ERROR_CODES, ERROR_REFERENCE, errorAnchor } from "../errors.ts";
import { splitErrorDescription } from "../http/openapi_responses.ts";
import { curlExample } from "./curl_example.ts";
import { limitsOf, rateLimitHeadersOf } from "./limits.ts";
import type {
  ApiReference,
  BodyRef,
  CallbackRef,
  FieldRef,
  McpRef,
  OperationRef,
  ReferenceConfig,
  ResponseRef,
  Text,
} from "./reference_types.ts";
import {
  type OpenApiDocument,
  type OperationObject,
  operationsOf,
  resolveSchema,
  type ResponseObject,
  type SchemaObject,
  SERVICE_SUMMARY,
  SERVICE_TITLE,
} from "./openapi_document.ts";

/**
 * The reference model of `document`, with the limits `config` sets and the MCP section its
 * endpoint describes (lib/mcp/reference.ts).
 */
export function buildReference(
  document: OpenApiDocument,
  baseUrl: string,
  config: ReferenceConfig,
  mcp: McpRef,
): ApiReference {
  const operations = operationsOf(document).map((op): OperationRef => ({
    id: op.operation.operationId,
    anchor: `op-${op.operation.operationId}`,
    method: op.method,
    path: op.path,
    summary: op.operation.summary ?? "",
    description: op.operation.description ?? "",
    parameters: (op.operation.parameters ?? []).map((p) => {
      const schema = resolveSchema(document, p.schema ?? {});
      const notes = notesOf(schema, p.description);
      return { in: p.in, name: p.name, required: p.required ?? false, type: typeOf(schema), notes };
    }),
    bodies: bodiesOf(document, op.operation.requestBody),
    responses: Object.entries(op.operation.responses).map(([status, r]) => responseOf(status, r)),
    answers: Object.entries(op.operation.responses)
      .filter(([status]) => status.startsWith("2"))
      .flatMap(([status, r]) =>
        Object.entries(r.content ?? {})
          .filter(([type, media]) => type === "application/json" && media.schema)
          .map(([type, media]) => {
            const schema = resolveSchema(document, media.schema!);
            return {
              status,
              contentType: type,
              fields: nestedFieldsOf(document, schema),
              type: typeOf(schema),
            };
          })
      ),
    callbacks: callbacksOf(document, op.operation),
    curl: curlExample(document, op, baseUrl),
  }));
  const envelope = fieldsOf(document, { $ref: "#/components/schemas/Error" });
  return {
    title: SERVICE_TITLE,
    summary: SERVICE_SUMMARY,
    baseUrl,
    overview: `Base URL: ${baseUrl}. OpenAPI ${document.openapi}, version ` +
      `${document.info.version}. Paths carry no version segment. No operation needs ` +
      "credentials; an Authorization header is ignored. Any page also answers Markdown when the " +
      "request prefers `Accept: text/markdown`.",
    gettingStarted: "No API key is needed. Errors are JSON objects with " +
      `${prose(envelope.map((f) => `\`${f.name}\``))}; branch on \`code\`.`,
    documents: [
      {
        path: "/openapi.json",
        label: `OpenAPI ${document.openapi} description`,
        about: "the machine-readable contract",
      },
      {
        path: "/llms-full.txt",
        label: "Full reference",
        about: "every field, status, error code and limit",
      },
      {
        path: "/docs",
        label: "HTML reference",
        about: "the same for people, with an anchor per error code",
      },
    ],
    operations,
    envelope: {
      intro: "Every failure is this JSON envelope, with the HTTP status repeated in `status`; " +
        "`code` is stable and safe to branch on.",
      fields: envelope,
    },
    errors: ERROR_CODES.map((code) => ({
      code,
      anchor: errorAnchor(code),
      ...ERROR_REFERENCE[code],
    })),
    limits: limitsOf(operations, config),
    rateLimitHeaders: rateLimitHeadersOf(operations),
    mcp,
  };
}

function bodiesOf(document: OpenApiDocument, body: OperationObject["requestBody"]): BodyRef[] {
  return Object.entries(body?.content ?? {}).map(([type, media]) => {
    const schema = resolveSchema(document, media.schema);
    return { contentType: type, fields: nestedFieldsOf(document, schema), type: typeOf(schema) };
  });
}

/** The operation's callbacks, one entry per name, URL expression and method. */
function callbacksOf(document: OpenApiDocument, operation: OperationObject): CallbackRef[] {
  return Object.entries(operation.callbacks ?? {}).flatMap(([name, targets]) =>
    Object.entries(targets).flatMap(([expression, methods]) =>
      Object.entries(methods).map(([method, callback]) => ({
        name,
        method: method.toUpperCase(),
        target: targetOf(expression),
        summary: callback.summary ?? "",
        description: callback.description ?? "",
        bodies: bodiesOf(document, callback.requestBody),
        responses: Object.entries(callback.responses ?? {}).map(([s, r]) => responseOf(s, r)),
      }))
    )
  );
}

/**
 * A callback's URL expression in words: `{$request.body#/webhook/url}` is the request body's
 * field `webhook.url`; anything else is shown as it is.
 */
function targetOf(expression: string): Text {
  const field = /^\{\$request\.body#\/([^}]+)\}$/.exec(expression)?.[1];
  return field
    ? `the URL in the request body's \`${field.replaceAll("/", ".")}\``
    : `\`${expression}\``;
}

function responseOf(status: string, response: ResponseObject): ResponseRef {
  const { when, codes } = splitErrorDescription(response.description);
  return {
    status,
    contentTypes: Object.keys(response.content ?? {}),
    description: when,
    codes: codes.map((code) => ({ code, anchor: errorAnchor(code) })),
    headers: Object.entries(response.headers ?? {}).map(([name, header]) => ({
      name,
      description: header.description ?? header.schema?.description ?? "",
    })),
  };
}

function fieldOf(document: OpenApiDocument, name: string, raw: SchemaObject, required: boolean) {
  const schema = resolveSchema(document, raw);
  return { name, type: typeOf(schema), required, notes: notesOf(schema) };
}

/** The fields of an object schema, its $refs resolved, for the reference's tables. */
export function fieldsOf(document: OpenApiDocument, raw: SchemaObject): FieldRef[] {
  const schema = resolveSchema(document, raw);
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, field]) =>
    fieldOf(document, name, field, required.has(name))
  );
}

/** A body's fields, with those of each object-valued field after it as `field.child`. */
function nestedFieldsOf(document: OpenApiDocument, schema: SchemaObject): FieldRef[] {
  return fieldsOf(document, schema).flatMap((field) => {
    const inner = resolveSchema(document, schema.properties![field.name]);
    if (!inner.properties) return [field];
    return [
      field,
      ...fieldsOf(document, inner).map((f) => ({ ...f, name: `${field.name}.${f.name}` })),
    ];
  });
}

function typeOf(schema: SchemaObject): Text {
  if (schema.enum) return schema.enum.map((v) => `\`${v}\``).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" or ") : schema.type ?? "object";
  return schema.format ? `${type} (${schema.format})` : type;
}

function notesOf(schema: SchemaObject, description = schema.description): Text {
  return [
    description,
    schema.default !== undefined ? `Default \`${JSON.stringify(schema.default)}\`.` : "",
    schema.pattern ? `Pattern \`${schema.pattern}\`.` : "",
  ].filter(Boolean).join(" ");
}

/** "a, b and c". */
function prose(items: string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
