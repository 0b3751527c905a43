import { html, raw } from "hono/html";
import { htmlPage } from "../http/html_page.ts";
import type {
  ApiReference,
  CallbackRef,
  FieldRef,
  McpRef,
  OperationRef,
  ResponseRef,
  Text,
} from "./reference_types.ts";

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

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** A model text as HTML: escaped, with its `code spans` as <code>. */
function inline(text: Text) {
  const escaped = text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
  return raw(escaped.replace(/`([^`]+)`/g, "<code>$1</code>"));
}

function fieldTable(fields: FieldRef[], type: Text) {
  if (!fields.length) return html`<p>Type: ${inline(type)}.</p>`;
  return html`<table><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>${
    fields.map((f) =>
      html`
        <tr>
          <td><code>${f.name}</code></td>
          <td>${inline(f.type)}</td>
          <td>${f.required ? "yes" : "no"}</td>
          <td>${inline(f.notes)}</td>
        </tr>
      `
    )
  }</table>`;
}

/** Names as <code>, comma-separated, each linked to its anchor when it has one. */
function codeList(items: Array<{ name: string; anchor?: string }>) {
  return items.map(({ name, anchor }, i) => {
    const code = html`<code>${name}</code>`;
    return html`${i ? ", " : ""}${anchor ? html`<a href="#${anchor}">${code}</a>` : code}`;
  });
}

function responseRow(r: ResponseRef) {
  const codes = r.codes.map(({ code, anchor }) => ({ name: code, anchor }));
  const types = r.contentTypes.map((name) => ({ name }));
  return html`
    <tr>
      <td>${r.status}</td>
      <td>${codeList(types)}</td>
      <td>${inline(r.description)}${codes.length
        ? html`
          Codes: ${codeList(codes)}.
        `
        : ""}${r.headers.length
        ? html`
          Headers: ${codeList(r.headers)}.
        `
        : ""}</td>
    </tr>
  `;
}

/** A request the service sends back (a webhook event): where, what it carries, what to answer. */
function callbackBlock(callback: CallbackRef) {
  return html`<h3>Callback <code>${callback.name}</code>: ${callback.method} to ${
    inline(callback.target)
  }</h3>
${
    [callback.summary, callback.description].filter(Boolean).map((text) =>
      html`<p>${inline(text)}</p>`
    )
  }
${
    callback.bodies.map((body) =>
      html`<p>Callback body <code>${body.contentType}</code></p>${
        fieldTable(body.fields, body.type)
      }`
    )
  }
<table><tr><th>Receiver answers</th><th>Content</th><th>Meaning</th></tr>${
    callback.responses.map(responseRow)
  }</table>`;
}

function operationSection(op: OperationRef) {
  return html`<section class="op" id="${op.anchor}">
<h2><code>${op.method} ${op.path}</code></h2>
<p class="muted">operationId <code>${op.id}</code></p>
${[op.summary, op.description].filter(Boolean).map((text) => html`<p>${inline(text)}</p>`)}
${
    op.parameters.map((p) =>
      html`<p>${p.in} parameter <code>${p.name}</code>${p.required ? " (required)" : ""}: ${
        inline(p.type)
      }. ${inline(p.notes)}</p>`
    )
  }
${
    op.bodies.map((body) =>
      html`<p>Request body <code>${body.contentType}</code></p>${
        fieldTable(body.fields, body.type)
      }`
    )
  }
<table><tr><th>Status</th><th>Content</th><th>Meaning</th></tr>${
    op.responses.map(responseRow)
  }</table>
${
    op.answers.map((answer) =>
      html`<p>Answer body of ${answer.status} <code>${answer.contentType}</code></p>${
        fieldTable(answer.fields, answer.type)
      }`
    )
  }
${op.callbacks.map(callbackBlock)}
<pre>${op.curl}</pre>
</section>`;
}

/** The MCP endpoint: its tools, each linked to the operation it runs, and how to add it. */
function mcpSection(mcp: McpRef) {
  return html`<section id="mcp">
<h2>MCP: Shotline as tools for agents</h2>
<p>${inline(mcp.about)}</p>
<table><tr><th>Tool</th><th>Runs</th><th>Answer</th><th>Arguments</th></tr>${
    mcp.tools.map((tool) =>
      html`
        <tr>
          <td><code>${tool.name}</code><br>${tool.title}</td>
          <td><a href="#${tool.operation.anchor}"><code>${tool.operation.method} ${tool.operation
            .path}</code></a></td>
          <td>${inline(tool.answer)}</td>
          <td>${inline(tool.arguments)}</td>
        </tr>
      `
    )
  }</table>
<h3 id="mcp-setup">Add Shotline to an MCP client</h3>
${
    mcp.setup.map(({ label, code }) =>
      html`
        <p>${inline(label)}</p>
        <pre>${code}</pre>
      `
    )
  }
</section>`;
}

/** The HTML reference at `/docs`: the reference model as a page, one anchor per code. */
export function docsPage(ref: ApiReference) {
  const head = { title: `${ref.title} reference`, stylesheet: "/assets/site.css" };
  const links = ref.documents.filter((doc) => doc.path !== "/docs");
  return htmlPage(
    { ...head, markdown: "/llms-full.txt" },
    html`
      <h1>${ref.title} reference</h1>
      <p>${inline(ref.summary)}</p>
      <p class="muted">${inline(ref.overview)}</p>
      <p class="muted">Machine-readable: ${links.map((doc, i) =>
        html`${i ? ", " : ""}<a href="${doc.path}">${doc.path}</a> (${inline(doc.about)})`
      )}.</p>
      ${ref.operations.map(operationSection)}
      ${mcpSection(ref.mcp)}
      <section id="errors">
      <h2>Errors</h2>
      <p>${inline(ref.envelope.intro)}</p>
      ${fieldTable(ref.envelope.fields, "object")}
      ${ref.errors.map((e) =>
        html`<h3 id="${e.anchor}"><code>${e.code}</code></h3>
<p>Statuses: ${e.statuses.join(", ")}. ${inline(e.meaning)}</p>
<p><strong>How to fix it:</strong> ${inline(e.hint)}</p>`
      )}
      </section>
      <section id="limits">
        <h2>Limits</h2>
        <ul>${ref.limits.map((limit) => html`<li>${inline(limit)}</li>`)}</ul>
        <table><tr><th>Rate-limit header</th><th>Meaning</th><th>Sent with</th></tr>${ref
          .rateLimitHeaders.map((h) =>
            html`
              <tr>
                <td><code>${h.name}</code></td>
                <td>${inline(h.description)}</td>
                <td>${h.statuses.join(", ")}</td>
              </tr>
            `
          )}</table>
      </section>
    `,
  );
}
