/**
 * Cookies and headers of a capture behind a login, sent only on requests to the target's own
 * origin (scheme, host and port): never to a third-party subresource, nor to another port of
 * the same host, nor to a redirect hop elsewhere. The browser's cookie jar scopes cookies by
 * host alone, so they are not put there: each same-origin request gets them in its Cookie
 * header, after whatever cookies the site set itself.
 *
 * This uses its own CDP session's Fetch interception, limited to the origin's URLs; it chains
 * with any other interception of the page (the remote request guard, the ad filter), never
 * changes a URL, and is not set up at all for a capture without credentials.
 */
import type { CDPSession, Page } from "puppeteer-core";
import type { Credentials } from "../request/credentials.ts";

interface PausedRequest {
  requestId: string;
  request: { url: string; headers: Record<string, string> };
}

/** Starts sending `credentials` to `url`'s origin; `stop()` ends it. */
export async function sendCredentials(
  page: Page,
  options: { url: string; credentials: Credentials },
): Promise<{ stop(): Promise<void> }> {
  const { url, credentials } = options;
  const origin = new URL(url).origin;
  const extra = Object.entries(credentials.headers ?? {});
  const cookies = credentials.cookies ?? [];
  const session: CDPSession = await page.createCDPSession();

  const decorate = async (paused: PausedRequest) => {
    const headers = Object.entries(paused.request.headers)
      .filter(([name]) => !extra.some(([own]) => own.toLowerCase() === name.toLowerCase()))
      .concat(extra);
    if (cookies.length > 0) {
      // A Cookie header replaces the jar's, so the site's own cookies go first; a cookie the
      // site has set since (a rotated session, say) wins over the caller's of the same name.
      const { cookies: jar } = await session.send("Network.getCookies", {
        urls: [paused.request.url],
      });
      const taken = new Set(jar.map((c) => c.name));
      const line = [
        ...jar.map((c) => `${c.name}=${c.value}`),
        ...cookies.filter((c) => !taken.has(c.name)).map((c) => `${c.name}=${c.value}`),
      ].join("; ");
      headers.push(["Cookie", line]);
    }
    return headers.map(([name, value]) => ({ name, value }));
  };

  session.on("Fetch.requestPaused", (paused: PausedRequest) => {
    void (async () => {
      let sameOrigin = false;
      try {
        sameOrigin = new URL(paused.request.url).origin === origin;
      } catch {
        // Not a URL we can read: certainly not the target's origin.
      }
      const headers = sameOrigin ? await decorate(paused) : undefined;
      await session.send("Fetch.continueRequest", {
        requestId: paused.requestId,
        ...(headers ? { headers } : {}),
      });
    })().catch(() => {
      // The page may be gone (capture over, context closed): nothing left to send.
      void session.send("Fetch.continueRequest", { requestId: paused.requestId }).catch(() => {});
    });
  });
  // Only the origin's URLs pause at all; the exact origin is checked again for each one.
  await session.send("Fetch.enable", {
    patterns: [{ urlPattern: `${origin}/*`, requestStage: "Request" }],
  });
  return {
    async stop() {
      await session.detach().catch(() => {});
    },
  };
}
