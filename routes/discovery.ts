import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../lib/http/app_env.ts";
import { llmsFullTxt, llmsTxt } from "../lib/discovery/llms_txt.ts";
import { documentBuilder } from "../lib/discovery/openapi_document.ts";
import { buildReference } from "../lib/discovery/reference.ts";
import { mcpReferenceOf } from "../lib/mcp/reference.ts";
import { docsPage, PAGE_CSP, PAGE_STYLESHEET } from "../lib/discovery/docs_page.ts";
import { wantsMarkdown } from "../lib/http/negotiate.ts";
import { baseUrlOf } from "../lib/http/error_response.ts";
import { createRouter } from "../lib/http/router.ts";

const MARKDOWN = "text/markdown; charset=utf-8";

const openApiRoute = createRoute({
  method: "get",
  path: "/openapi.json",
  operationId: "getOpenApiSpec",
  tags: ["Discovery"],
  summary: "The OpenAPI 3.1 description of this API",
  description: "Generated from the same schemas that validate requests.",
  responses: {
    200: {
      description: "The OpenAPI 3.1.0 document, version 1.0.0.",
      content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
    },
  },
});

const markdownResponse = (description: string) => ({
  200: { description, content: { "text/markdown": { schema: z.string() } } },
});

const llmsRoute = createRoute({
  method: "get",
  path: "/llms.txt",
  operationId: "getLlmsTxt",
  tags: ["Discovery"],
  summary: "A Markdown overview for language models (llmstxt.org)",
  description: "Summary, links and a curl example per operation.",
  responses: markdownResponse("The overview as Markdown."),
});

const llmsFullRoute = createRoute({
  method: "get",
  path: "/llms-full.txt",
  operationId: "getLlmsFullTxt",
  tags: ["Discovery"],
  summary: "The full reference as Markdown",
  description: "Every operation with fields, statuses and codes; errors with hints; limits.",
  responses: markdownResponse("The full reference as Markdown."),
});

/** /openapi.json, then /llms.txt, /llms-full.txt and /docs from one reference model of it. */
export function createDiscoveryRouter(getApp: () => OpenAPIHono<AppEnv>) {
  const documentFor = documentBuilder(getApp);
  const reference = (c: Context<AppEnv>) => {
    const base = baseUrlOf(c);
    const document = documentFor(base);
    return buildReference(document, base, c.var.deps.config, mcpReferenceOf(document, base));
  };

  const markdown = (c: Context<AppEnv>, body: string) => {
    c.header("Vary", "Accept");
    return c.body(body, 200, { "Content-Type": MARKDOWN });
  };

  /** HTML by default, Markdown when preferred; both advertise the other and the API description. */
  const page = (c: Context<AppEnv>, toMarkdown: () => string, toHtml: () => unknown) => {
    c.header("Vary", "Accept");
    c.header(
      "Link",
      `</openapi.json>; rel="service-desc", <${c.req.path}>; rel="alternate"; ` +
        `type="text/markdown"`,
    );
    if (wantsMarkdown(c.req.header("Accept"), "text/html")) return markdown(c, toMarkdown());
    c.header("Content-Security-Policy", PAGE_CSP);
    c.header("X-Content-Type-Options", "nosniff");
    return c.html(toHtml() as string, 200);
  };

  return createRouter()
    .openapi(openApiRoute, (c) => c.json(documentFor(baseUrlOf(c)), 200))
    .openapi(llmsRoute, (c) => markdown(c, llmsTxt(reference(c))))
    .openapi(llmsFullRoute, (c) => markdown(c, llmsFullTxt(reference(c))))
    .get("/docs", (c) => {
      const ref = reference(c);
      return page(c, () => llmsFullTxt(ref), () => docsPage(ref));
    })
    .get("/assets/site.css", (c) =>
      c.body(PAGE_STYLESHEET, 200, {
        "Content-Type": "text/css; charset=utf-8",
        "Cache-Control": "public, max-age=86400",
      }));
}
