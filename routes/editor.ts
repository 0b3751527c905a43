import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../lib/http/app_env.ts";
import { editorAssets } from "../lib/editor/assets.ts";
import { editorPage } from "../lib/editor/page.ts";
import { llmsTxt } from "../lib/discovery/llms_txt.ts";
import { wantsMarkdown } from "../lib/http/negotiate.ts";
import { documentBuilder } from "../lib/discovery/openapi_document.ts";
import { buildReference } from "../lib/discovery/reference.ts";
import { mcpReferenceOf } from "../lib/mcp/reference.ts";
import { baseUrlOf } from "../lib/http/error_response.ts";
import { createRouter } from "../lib/http/router.ts";

/**
 * Only our own script, stylesheet, same-origin API calls and local images (data:, blob: for the
 * canvas and the download): no inline code, no third party, not embeddable, no form posts.
 */
export const EDITOR_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";

// Asset URLs carry their content hash, so a year-long immutable cache can never go stale.
const IMMUTABLE = "public, max-age=31536000, immutable";

/** `/`: the editor page (or the llms.txt overview as Markdown), and its hashed assets. */
export function createEditorRouter(getApp: () => OpenAPIHono<AppEnv>) {
  const documentFor = documentBuilder(getApp);
  const { urls, files } = editorAssets();
  // Rendered once, on the first visit (the upload limit is in the request's deps): the page has
  // no per-request content (the template is synchronous).
  let page = "";
  const router = createRouter();

  router.get("/", (c) => {
    c.header("Vary", "Accept");
    c.header(
      "Link",
      '</openapi.json>; rel="service-desc", </>; rel="alternate"; type="text/markdown"',
    );
    if (wantsMarkdown(c.req.header("Accept"), "text/html")) {
      const base = baseUrlOf(c);
      const document = documentFor(base);
      const ref = buildReference(document, base, c.var.deps.config, mcpReferenceOf(document, base));
      return c.body(llmsTxt(ref), 200, {
        "Content-Type": "text/markdown; charset=utf-8",
      });
    }
    const maxUploadBytes = c.var.deps.config.MAX_UPLOAD_BYTES;
    page ||= String(editorPage({ assets: urls, maxUploadBytes })).trimStart();
    return c.html(page, 200, {
      "Content-Security-Policy": EDITOR_CSP,
      "X-Content-Type-Options": "nosniff",
      // Revalidated on each visit so a deploy's new asset hashes are picked up at once.
      "Cache-Control": "no-cache",
      "Referrer-Policy": "no-referrer",
    });
  });

  for (const asset of files) {
    router.get(asset.path, (c) =>
      c.body(asset.body, 200, {
        "Content-Type": asset.contentType,
        "Cache-Control": IMMUTABLE,
        "X-Content-Type-Options": "nosniff",
      }));
  }
  return router;
}
