import type {
  ApiReference,
  CallbackRef,
  FieldRef,
  McpRef,
  ResponseRef,
  Text,
} from "./reference_types.ts";

/** /llms.txt: the llmstxt.org shape (H1, blockquote summary, sections of annotated links). */
export function llmsTxt(ref: ApiReference): string {
  const lines = [...heading(ref.title, ref), ref.gettingStarted, "", "## Operations", ""];
  for (const op of ref.operations) {
    lines.push(
      `- [${op.method} ${op.path}](${ref.baseUrl}/docs#${op.anchor}): ${op.summary || op.id}`,
      "",
      "  ```sh",
      `  ${op.curl}`,
      "  ```",
      "",
    );
  }
  lines.push(...mcpSection(ref.mcp, ref.baseUrl), "## Reference", "");
  for (const doc of ref.documents) {
    lines.push(`- [${doc.label}](${ref.baseUrl}${doc.path}): ${doc.about}`);
  }
  lines.push("");
  return lines.join("\n");
}

/** /llms-full.txt (and /docs as Markdown): the whole reference in one Markdown file. */
export function llmsFullTxt(ref: ApiReference): string {
  const lines = [
    ...heading(`${ref.title}: full reference`, ref),
    ref.overview,
    "",
    "## Operations",
    "",
  ];
  for (const op of ref.operations) {
    lines.push(`### ${op.method} ${op.path} (\`${op.id}\`)`, "");
    for (const text of [op.summary, op.description]) if (text) lines.push(text, "");
    for (const p of op.parameters) {
      lines.push(
        `- ${p.in} parameter \`${p.name}\`${p.required ? " (required)" : ""}: ${p.type}. ${p.notes}`
          .trimEnd(),
      );
    }
    if (op.parameters.length) lines.push("");
    for (const body of op.bodies) {
      lines.push(
        `Request body (\`${body.contentType}\`):`,
        "",
        ...fieldTable(body.fields, body.type),
        "",
      );
    }
    lines.push("Responses:", "", ...op.responses.map(responseLine));
    for (const answer of op.answers) {
      lines.push(
        "",
        `Answer body of ${answer.status} (\`${answer.contentType}\`):`,
        "",
        ...fieldTable(answer.fields, answer.type),
      );
    }
    for (const callback of op.callbacks) lines.push("", ...callbackLines(callback));
    lines.push("", "```sh", op.curl, "```", "");
  }
  lines.push(
    ...mcpSection(ref.mcp, ref.baseUrl, true),
    "## Errors",
    "",
    ref.envelope.intro,
    "",
    ...fieldTable(ref.envelope.fields, "object"),
    "",
    ...table(
      ["Code", "Statuses", "Meaning", "How to fix it"],
      ref.errors.map((e) => [
        `<a id="${e.anchor}"></a>\`${e.code}\``,
        e.statuses.join(", "),
        e.meaning,
        e.hint,
      ]),
    ),
    "",
    "## Limits",
    "",
    ...ref.limits.map((limit) => `- ${limit}`),
    "",
    "Rate-limit headers:",
    "",
    ...table(
      ["Header", "Meaning", "Sent with"],
      ref.rateLimitHeaders.map((h) => [`\`${h.name}\``, h.description, h.statuses.join(", ")]),
    ),
    "",
  );
  return lines.join("\n");
}

/** The MCP endpoint, its tools (linked to their operations under `docsBase`) and client set-up. */
function mcpSection(mcp: McpRef, docsBase: string, withArguments = false): string[] {
  const lines = ["## MCP", "", mcp.about, ""];
  for (const tool of mcp.tools) {
    const { method, path, anchor } = tool.operation;
    const link = `${docsBase}/docs#${anchor}`;
    lines.push(
      `- \`${tool.name}\` (${tool.title}): runs [${method} ${path}](${link}). ${tool.answer}` +
        (withArguments ? ` Arguments: ${tool.arguments}.` : ""),
    );
  }
  lines.push("", "Add it to a client:", "");
  for (const { label, code } of mcp.setup) {
    lines.push(label, "", code.startsWith("{") ? "```json" : "```sh", code, "```", "");
  }
  return lines;
}

/** A request the service sends back (a webhook event): where, what it carries, what to answer. */
function callbackLines(callback: CallbackRef): string[] {
  const lines = [
    `#### Callback \`${callback.name}\`: ${callback.method} to ${callback.target}`,
    "",
  ];
  for (const text of [callback.summary, callback.description]) if (text) lines.push(text, "");
  for (const body of callback.bodies) {
    lines.push(
      `Callback body (\`${body.contentType}\`):`,
      "",
      ...fieldTable(body.fields, body.type),
      "",
    );
  }
  lines.push("The receiver answers:", "", ...callback.responses.map(responseLine));
  return lines;
}

function heading(title: string, ref: ApiReference): string[] {
  return [`# ${title}`, "", `> ${ref.summary}`, ""];
}

function responseLine(r: ResponseRef): string {
  const types = r.contentTypes.map((t) => `\`${t}\``).join(", ");
  const codes = r.codes.map((c) => `[\`${c.code}\`](#${c.anchor})`).join(", ");
  const headers = r.headers.map((h) => `\`${h.name}\``).join(", ");
  return `- **${r.status}**${types ? ` (${types})` : ""}: ${r.description}` +
    (codes ? ` Codes: ${codes}.` : "") + (headers ? ` Headers: ${headers}.` : "");
}

function fieldTable(fields: FieldRef[], type: Text): string[] {
  if (!fields.length) return [`Type: ${type}.`];
  return table(
    ["Field", "Type", "Required", "Notes"],
    fields.map((f) => [`\`${f.name}\``, f.type, f.required ? "yes" : "no", f.notes]),
  );
}

function table(head: string[], rows: Text[][]): string[] {
  // A pipe inside a cell (enum separators, patterns) would end the cell.
  const row = (cells: Text[]) => `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
  return [row(head), `|${head.map(() => "---").join("|")}|`, ...rows.map(row)];
}
