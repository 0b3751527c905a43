import { signRenderLink } from "../lib/http/render_links.ts";
import { createCaptureApp } from "./capture_app.ts";
import { manualClock } from "./app.ts";

/** The RENDER_LINK_SECRET of render-link tests. */
export const RENDER_SECRET = "test-render-link-secret-0123456789abcdef";

/**
 * A capture app (solidCapturer) with render links enabled and a clock moved by hand; `link`
 * signs a GET /api/render URL for it, `render` requests one.
 */
export async function createRenderApp(options: { env?: Record<string, string> } = {}) {
  const clock = manualClock();
  const t = await createCaptureApp({
    env: { RENDER_LINK_SECRET: RENDER_SECRET, ...options.env },
    deps: { clock },
  });
  /** A link for `fields`, valid for `expiresInSeconds` from the app's now. */
  const link = (fields: Record<string, unknown>, expiresInSeconds = 7 * 86_400) =>
    signRenderLink("http://localhost", fields, {
      secret: RENDER_SECRET,
      expiresAt: new Date(clock.now() + expiresInSeconds * 1000),
    });
  const render = async (url: string, headers: Record<string, string> = {}) =>
    await t.app.request(url, { headers });
  return { ...t, clock, link, render };
}
