/**
 * The real app on one capture backend for the full-page shape tests: the local Chromium, or a
 * second Chromium as the remote fleet (BROWSER_WS_ENDPOINT, no local backend). Captures come
 * back as PNG bytes, read by sampling (testing/png_rows.ts): a full decode of the
 * largest ones would hold hundreds of MB.
 */
import assert from "node:assert/strict";
import { createCaptureBackends } from "../lib/capture/backends.ts";
import { CHROMIUM_LOCAL } from "../lib/capture/local/capturer.ts";
import { CHROMIUM_REMOTE } from "../lib/capture/remote/capturer.ts";
import { parseConfig } from "../lib/config.ts";
import { createMemoryLogger } from "../lib/log.ts";
import { startRemoteChromium } from "./remote_chromium.ts";
import { createTestApp } from "./app.ts";
import { pngOf } from "./capture_app.ts";
import type { PageServer } from "./capture_fixtures.ts";
import { pngSize } from "./png.ts";

export type Backend = "local" | "remote";
export const BACKENDS: Backend[] = ["local", "remote"];

// Generous: a full page past one GPU texture is shot band by band, on a busy 2-core machine.
const CAPTURE_TIMEOUT_MS = "120000";

/** One app for a whole test file on `backend`, allowed to reach `pages`. */
export async function shapeHarness(pages: PageServer, backend: Backend) {
  const remote = backend === "remote" ? await startRemoteChromium() : null;
  const env: Record<string, string> = {
    ALLOW_PRIVATE_NETWORK: "true",
    RATE_LIMIT_PER_MINUTE: "1000",
    CAPTURE_TIMEOUT_MS,
    ...(remote ? { BROWSER_WS_ENDPOINT: remote.endpoint } : {}),
  };
  const capture = remote
    ? createCaptureBackends({
      config: parseConfig(env),
      log: createMemoryLogger(),
      localChromiumFound: () => false,
    })
    : undefined;
  const harness = await createTestApp({ env, ...(capture ? { deps: { capture } } : {}) });
  const strategy = remote ? CHROMIUM_REMOTE : CHROMIUM_LOCAL;

  /** A 200 full-page capture of `path` on this backend: status, type, then body and PNG. */
  const shoot = async (path: string, options: Record<string, unknown> = {}) => {
    const response = await harness.app.request("/api/screenshot", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${pages.origin}${path}`, fullPage: true, ...options }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    const json = JSON.parse(text);
    assert.equal(json.strategy, strategy, "the capture ran on the backend under test");
    const png = pngOf(json);
    const size = pngSize(png);
    assert.deepEqual([json.width, json.height], [size.width, size.height], "width and height");
    return { json, png };
  };
  return {
    app: harness.app,
    shoot,
    async [Symbol.asyncDispose]() {
      await harness.close();
      await capture?.close();
      await remote?.[Symbol.asyncDispose]();
    },
  };
}
