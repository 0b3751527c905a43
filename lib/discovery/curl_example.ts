import { type OpenApiDocument, operationsOf, resolveSchema } from "./openapi_document.ts";

type Operation = ReturnType<typeof operationsOf>[number];

/** A runnable curl line for an operation, built from the examples in its schemas. */
export function curlExample(document: OpenApiDocument, op: Operation, baseUrl: string): string {
  const { operation } = op;
  let path = op.path;
  const query: string[] = [];
  for (const param of operation.parameters ?? []) {
    // A long list of optional fields (a render link's) would bury the call: the examples show it.
    if (!param.required && param.schema?.example === undefined) continue;
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
  } else if (operation.responses["200"]?.headers?.["Content-Disposition"]) {
    parts.push("-OJ"); // bytes with a file name: saved under it, not printed to the terminal
  }
  parts.push(`'${url}'`);
  return parts.join(" ");
}
