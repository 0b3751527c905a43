import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { ERROR_CODES, ERROR_REFERENCE, errorAnchor } from "../errors.ts";
import { curlExample } from "./llms_txt.ts";
import {
  type OpenApiDocument,
  operationsOf,
  resolveSchema,
  type SchemaObject,
  SERVICE_SUMMARY,
  SERVICE_TITLE,
} from "./openapi_document.ts";

/** Pages load nothing but our own stylesheet: no script, no third-party origin. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'";

export const PAGE_STYLESHEET = `
:root { color-scheme: light dark; --fg: #1d1f23; --bg: #fff; --muted: #5b6270; --line: #dde1e8;
  --code: #f3f5f8; --accent: #2457d6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8ec; --bg: #14161a; --muted: #9aa3b2;
  --line: #2c313a; --code: #1d2127; --accent: #7aa2ff; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1.5rem; font: 16px/1.55 system-ui, sans-serif;
  color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
code, pre { font: 0.9em/1.45 ui-monospace, monospace; background: var(--code); border-radius: 4px; }
code { padding: 0.1em 0.3em; }
pre { padding: 0.75rem; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: 0.35rem 0.5rem; text-align: left;
  vertical-align: top; }
.muted { color: var(--muted); }
section.op { border-top: 1px solid var(--line); padding-top: 0.5rem; }
`;

function layout(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${title}</title>
        <link rel="stylesheet" href="/assets/site.css">
        <link rel="service-desc" href="/openapi.json" type="application/json">
      </head>
      <body>
    ${body}
      </body>
    </html>
  `;
}

function schemaRows(document: OpenApiDocument, raw: SchemaObject) {
  const schema = resolveSchema(document, raw);
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, field]) => {
    const f = resolveSchema(document, field);
    const type = f.enum ? f.enum.join(" | ") : [f.type, f.format].filter(Boolean).join(" ");
    return html`
      <tr>
        <td><code>${name}</code></td>
        <td>${type}</td>
        <td>${required.has(name) ? "yes" : "no"}</td>
        <td>${f.description ?? ""}${f.default !== undefined
          ? ` Default ${JSON.stringify(f.default)}.`
          : ""}</td>
      </tr>
    `;
  });
}

/** The HTML reference at `/docs`, rendered from the OpenAPI document, one anchor per code. */
export function docsPage(document: OpenApiDocument, baseUrl: string) {
  const ops = operationsOf(document);
  return layout(
    `${SERVICE_TITLE} reference`,
    html`<h1>${SERVICE_TITLE} reference</h1>
<p>${SERVICE_SUMMARY}</p>
<p class="muted">OpenAPI ${document.openapi}, version ${document.info.version}. Base URL <code>${baseUrl}</code>.
Machine-readable: <a href="/openapi.json">/openapi.json</a>, <a href="/llms-full.txt">/llms-full.txt</a>.</p>
${
      ops.map(({ method, path, operation }) =>
        html`<section class="op" id="op-${operation.operationId}">
<h2><code>${method} ${path}</code></h2>
<p class="muted">operationId <code>${operation.operationId}</code></p>
<p>${operation.description ?? operation.summary ?? ""}</p>
${
          (operation.parameters ?? []).map((p) =>
            html`<p>${p.in} parameter <code>${p.name}</code>${p.required ? " (required)" : ""}: ${
              p.description ?? p.schema?.description ?? ""
            }</p>`
          )
        }
${
          Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) =>
            html`<p>Request body <code>${type}</code></p>
<table><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>${
              schemaRows(document, media.schema)
            }</table>`
          )
        }
<table><tr><th>Status</th><th>Meaning</th></tr>${
          Object.entries(operation.responses).map(([status, r]) =>
            html`
              <tr>
                <td>${status}</td>
                <td>${r.description}</td>
              </tr>
            `
          )
        }</table>
<pre>${curlExample(document, { method, path, operation }, baseUrl)}</pre>
</section>`
      )
    }
<section id="errors">
<h2>Errors</h2>
<p>Every failure returns this JSON envelope; <code>code</code> is stable and safe to branch on.</p>
<table><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>${
      schemaRows(document, { $ref: "#/components/schemas/Error" })
    }</table>
${
      ERROR_CODES.map((code) =>
        html`<h3 id="${errorAnchor(code)}"><code>${code}</code></h3>
<p>Statuses: ${ERROR_REFERENCE[code].statuses.join(", ")}. ${ERROR_REFERENCE[code].meaning}</p>
<p><strong>How to fix it:</strong> ${ERROR_REFERENCE[code].hint}</p>`
      )
    }
</section>`,
  );
}
