/**
 * A GET the service makes for a capture (its favicon) through an egress proxy session, so it is
 * judged, connected by checked address, counted and cut exactly like the browser's own requests:
 * every redirect hop is a new request through the proxy. Bounded in bytes and time.
 */
import { readCapped } from "../bytes.ts";
import type { ProxyCredentials } from "./proxy_auth.ts";

/** Which egress proxy session carries a load: a loopback session, or the fleet listener's. */
export interface EgressRoute {
  proxyUrl: string;
  /** The capture's credentials where the listener asks for them (the fleet's). */
  credentials?: ProxyCredentials;
}

export interface ProxiedGet {
  route: EgressRoute;
  headers: Record<string, string>;
  /** Past this many body bytes the answer is dropped unread. */
  maxBytes: number;
  signal: AbortSignal;
}

/** What came back: a 2xx's body, or why there is none. */
export type ProxiedAnswer =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: string };

// A favicon behind more hops than this is not worth following.
const MAX_REDIRECTS = 5;

/** GETs `url` through the proxy; never throws for a network failure, only says why. */
export async function getThroughProxy(url: string, request: ProxiedGet): Promise<ProxiedAnswer> {
  const { proxyUrl, credentials } = request.route;
  const client = Deno.createHttpClient({
    proxy: { url: proxyUrl, ...(credentials ? { basicAuth: credentials } : {}) },
  });
  try {
    let target = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const response = await fetch(target, {
        client,
        headers: request.headers,
        redirect: "manual",
        signal: request.signal,
      });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        target = new URL(location, target).href;
        if (!/^https?:$/.test(new URL(target).protocol)) return failed("redirect off the web");
        continue;
      }
      if (response.headers.get("x-shotline-egress") === "refused") {
        await response.body?.cancel();
        return failed("refused by the boundary");
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        return failed(`status ${response.status}`);
      }
      const bytes = await readCapped(response.body, request.maxBytes);
      return bytes ? { ok: true, bytes } : failed(`larger than ${request.maxBytes} bytes`);
    }
    return failed("too many redirects");
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  } finally {
    client.close();
  }
}

const failed = (reason: string): ProxiedAnswer => ({ ok: false, reason });
