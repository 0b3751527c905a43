import { ERROR_CODES, ERROR_REFERENCE, errorAnchor } from "../errors.ts";
import {
  type OpenApiDocument,
  operationsOf,
  resolveSchema,
  type SchemaObject,
  SERVICE_SUMMARY,
  SERVICE_TITLE,
} from "./openapi_document.ts";

type Operation = ReturnType<typeof operationsOf>[number];

/** A runnable curl line for an operation, built from the examples in its schemas. */
export function curlExample(document: OpenApiDocument, op: Operation, baseUrl: string): string {
  const { operation } = op;
  let path = op.path;
  const query: string[] = [];
  for (const param of operation.parameters ?? []) {
    const value = String(param.schema?.example ?? `<${param.name}>`);
    if (param.in === "path") path = path.replace(`{${param.name}}`, value);
    if (param.in === "query") query.push(`${param.name}=${encodeURIComponent(value)}`);
  }
  const url = `${baseUrl}${path}${query.length ? `?${query.join("&")}` : ""}`;
  const parts = ["curl"];
  if (op.method !== "GET") parts.push("-X", op.method);
  const content = operation.requestBody?.content ?? {};
  if (content["application/json"]) {
    const schema = resolveSchema(document, content["application/json"].schema);
    parts.push("-H 'Content-Type: application/json'");
    parts.push(`-d '${JSON.stringify(schema.example ?? {})}'`);
  } else if (content["multipart/form-data"]) {
    const schema = resolveSchema(document, content["multipart/form-data"].schema);
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      const value = field.format === "binary" ? "@screenshot.png" : String(field.example ?? "");
      parts.push(`-F ${name}=${value}`);
    }
    parts.push("-OJ"); // save under the Content-Disposition file name
  }
  parts.push(`'${url}'`);
  return parts.join(" ");
}

function typeOf(schema: SchemaObject): string {
  if (schema.enum) return schema.enum.map((v) => `\`${v}\``).join(" \\| ");
  const type = Array.isArray(schema.type) ? schema.type.join(" or ") : schema.type ?? "object";
  return schema.format ? `${type} (${schema.format})` : type;
}

function fieldTable(document: OpenApiDocument, raw: SchemaObject): string[] {
  const schema = resolveSchema(document, raw);
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {}).map(([name, field]) => {
    const f = resolveSchema(document, field);
    const notes = [
      f.description,
      f.default !== undefined ? `Default \`${JSON.stringify(f.default)}\`.` : "",
      f.pattern ? `Pattern \`${f.pattern}\`.` : "",
    ].filter(Boolean).join(" ");
    return `| \`${name}\` | ${typeOf(f)} | ${required.has(name) ? "yes" : "no"} | ${notes} |`;
  });
  return rows.length
    ? ["| Field | Type | Required | Notes |", "|---|---|---|---|", ...rows]
    : [`Type: ${typeOf(schema)}.`];
}

/** /llms.txt: the llmstxt.org shape (H1, blockquote summary, sections of annotated links). */
export function llmsTxt(document: OpenApiDocument, baseUrl: string): string {
  const lines = [`# ${SERVICE_TITLE}`, "", `> ${SERVICE_SUMMARY}`, ""];
  lines.push(
    "No API key is needed. Errors are JSON objects with `error`, `code`, `message`, `hint`, " +
      "`status` and `documentation`; branch on `code`.",
    "",
    "## Operations",
    "",
  );
  for (const op of operationsOf(document)) {
    const { operation } = op;
    lines.push(
      `- [${op.method} ${op.path}](${baseUrl}/docs#op-${operation.operationId}): ` +
        `${operation.summary ?? operation.operationId}`,
      "",
      "  ```sh",
      `  ${curlExample(document, op, baseUrl)}`,
      "  ```",
      "",
    );
  }
  lines.push(
    "## Reference",
    "",
    `- [OpenAPI 3.1 description](${baseUrl}/openapi.json): the machine-readable contract`,
    `- [Full reference](${baseUrl}/llms-full.txt): every field, status, error code and limit`,
    `- [HTML reference](${baseUrl}/docs): the same for people, with an anchor per error code`,
    "",
  );
  return lines.join("\n");
}

/** /llms-full.txt: the whole reference in one Markdown file. */
export function llmsFullTxt(document: OpenApiDocument, baseUrl: string): string {
  const lines = [`# ${SERVICE_TITLE}: full reference`, "", `> ${SERVICE_SUMMARY}`, ""];
  lines.push(
    `Base URL: ${baseUrl}. OpenAPI ${document.openapi}, version ${document.info.version}. ` +
      "Paths carry no version segment. No operation needs credentials; an Authorization " +
      "header is ignored. Any page also answers Markdown when the request prefers " +
      "`Accept: text/markdown`.",
    "",
    "## Operations",
    "",
  );
  for (const op of operationsOf(document)) {
    const { operation } = op;
    lines.push(`### ${op.method} ${op.path} (\`${operation.operationId}\`)`, "");
    if (operation.description) lines.push(operation.description, "");
    for (const param of operation.parameters ?? []) {
      const s = param.schema ?? {};
      lines.push(
        `- ${param.in} parameter \`${param.name}\`${param.required ? " (required)" : ""}: ` +
          `${typeOf(s)}${s.pattern ? `, pattern \`${s.pattern}\`` : ""}. ` +
          `${param.description ?? s.description ?? ""}`.trimEnd(),
      );
    }
    if (operation.parameters?.length) lines.push("");
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
      lines.push(`Request body (\`${type}\`):`, "", ...fieldTable(document, media.schema), "");
    }
    lines.push("Responses:", "");
    for (const [status, response] of Object.entries(operation.responses)) {
      const types = Object.keys(response.content ?? {}).map((t) => `\`${t}\``).join(", ");
      lines.push(`- **${status}**${types ? ` (${types})` : ""}: ${response.description}`);
    }
    lines.push("", "```sh", curlExample(document, op, baseUrl), "```", "");
  }
  lines.push(
    "## Errors",
    "",
    "Every failure is this JSON envelope, with the HTTP status repeated in `status`:",
    "",
    ...fieldTable(document, { $ref: "#/components/schemas/Error" }),
    "",
    "| Code | Statuses | Meaning | How to fix it |",
    "|---|---|---|---|",
    ...ERROR_CODES.map((code) => {
      const ref = ERROR_REFERENCE[code];
      return `| <a id="${errorAnchor(code)}"></a>\`${code}\` | ${ref.statuses.join(", ")} | ` +
        `${ref.meaning} | ${ref.hint} |`;
    }),
    "",
    "## Limits",
    "",
    "- `POST /api/screenshot`: a per-client-IP limit per sliding minute (20 by default). Past " +
      "it: 429 `rate_limited` with a `RateLimitError` body whose `retryAfter` equals the " +
      "`Retry-After` header. Wait that long before retrying.",
    "- `POST /api/export`: bounded by the upload size (413 past it) and processing time.",
    "- `GET /api/image-proxy`: only the four allowlisted media hosts (403 otherwise).",
    "",
    "Rate-limit headers (on 429, and on successful captures):",
    "",
    "| Header | Meaning |",
    "|---|---|",
    "| `Retry-After` | seconds to wait before retrying |",
    "| `X-RateLimit-Limit` | requests allowed per window |",
    "| `X-RateLimit-Remaining` | requests remaining in the current window |",
    "| `X-RateLimit-Reset` | Unix epoch milliseconds at which the window resets |",
    "",
  );
  return lines.join("\n");
}
