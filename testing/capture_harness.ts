/** The real app on loopback pages for end-to-end capture tests: shoot a body, or a checked 200. */
import assert from "node:assert/strict";
import { createTestApp } from "./app.ts";
import { pngOf } from "./capture_app.ts";
import { decodePng, type PageServer } from "./capture_fixtures.ts";

/**
 * One app (one lazily launched Chromium) for a whole test file, allowed to reach `pages`, with a
 * high rate limit and a short page budget; `env` adds or overrides variables.
 */
export async function captureHarness(pages: PageServer, env: Record<string, string> = {}) {
  const harness = await createTestApp({
    env: {
      ALLOW_PRIVATE_NETWORK: "true",
      RATE_LIMIT_PER_MINUTE: "1000",
      CAPTURE_TIMEOUT_MS: "4000",
      ...env,
    },
  });
  const shoot = (body: Record<string, unknown>) =>
    harness.app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  /** A 200 capture of `path`: status, content type, then the body with its decoded image. */
  const capture = async (path: string, options: Record<string, unknown> = {}) => {
    const response = await shoot({ url: `${pages.origin}${path}`, ...options });
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    const json = JSON.parse(text);
    const image = decodePng(pngOf(json));
    assert.deepEqual([json.width, json.height], [image.width, image.height], "width and height");
    return { json, image };
  };
  return { harness, shoot, capture };
}
