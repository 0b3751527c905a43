import type { AppDeps } from "../lib/services.ts";
import { createTestApp } from "./app.ts";
import { solidCapturer } from "./solid_capturer.ts";

/** A test app with a solidCapturer; the per-IP limit is high unless a test sets it. */
export async function createCaptureApp(
  options: { env?: Record<string, string>; deps?: Partial<AppDeps> } = {},
) {
  const capture = solidCapturer();
  const t = await createTestApp({
    env: { RATE_LIMIT_PER_MINUTE: "10000", ...options.env },
    deps: { capture, ...options.deps },
  });
  /** POST /api/screenshot with a JSON body (a string is sent as is). */
  const shoot = async (
    body: unknown,
    init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> =>
    await t.app.request("/api/screenshot", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...init.headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
      signal: init.signal,
    });
  return { ...t, capture, shoot };
}

/** The PNG bytes of a successful capture response body. */
export function pngOf(body: { screenshot: string }): Uint8Array {
  return Uint8Array.from(atob(body.screenshot), (c) => c.charCodeAt(0));
}
