/**
 * Webhook receivers on loopback for the webhook tests: one that verifies every delivery with the
 * Standard Webhooks reference library and answers by path, and one that accepts connections and
 * never answers. Both count what reaches them, so a test can show nothing did.
 */
import { Webhook } from "standardwebhooks";

/** A secret for tests only (the convention's published example). */
export const TEST_WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** What one request brought. */
export interface ReceivedDelivery {
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  /** Whether the reference library accepted the signature (and the timestamp, against now). */
  verified: boolean;
  /** When it arrived (epoch ms), for latency figures. */
  at: number;
}

/**
 * Answers by path: `/ok` 200, `/status/NNN` that status, `/redirect` a 302 to `/landing`,
 * `/long` 200 with `longBytes` of text (`/long-chunked` the same, chunked). Every request is
 * recorded, `/landing` included.
 */
export function webhookReceiver(
  options: { secret?: string; longBytes?: number; tls?: boolean } = {},
) {
  const reference = new Webhook(options.secret ?? TEST_WEBHOOK_SECRET);
  const received: ReceivedDelivery[] = [];
  // The syndication test certificate (cdn.syndication.twimg.com), signed by testing/tls/test_ca.pem.
  const tls = (name: string) => Deno.readTextFileSync(new URL(`tls/${name}`, import.meta.url));
  const listen = options.tls
    ? { cert: tls("syndication_cert.pem"), key: tls("syndication_key.pem") }
    : {};
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, ...listen },
    async (request) => {
      const at = Date.now();
      const path = new URL(request.url).pathname;
      const headers = Object.fromEntries(request.headers);
      const body = await request.text();
      let verified = false;
      try {
        reference.verify(body, headers);
        verified = true;
      } catch {
        // Recorded as unverified; the test decides what that means.
      }
      received.push({ path, method: request.method, headers, body, verified, at });
      const status = /^\/status\/(\d{3})$/.exec(path)?.[1];
      if (status) {
        const bodiless = status === "204" || status === "205" || status === "304";
        return new Response(bodiless ? null : `answered ${status}`, { status: Number(status) });
      }
      if (path === "/redirect") {
        return new Response(null, { status: 302, headers: { location: "/landing" } });
      }
      const long = "x".repeat(options.longBytes ?? 64 * 1024);
      if (path === "/long") return new Response(long);
      // A stream of unknown length goes out chunked.
      if (path === "/long-chunked") return new Response(new Blob([long]).stream());
      return new Response("thanks");
    },
  );
  return {
    port: server.addr.port,
    received,
    url: (path: string) => new URL(`http://127.0.0.1:${server.addr.port}${path}`),
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Accepts connections and reads nothing, answers nothing; `connections` counts them. */
export function silentReceiver() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) held.push(conn);
    } catch {
      // Closed by the test.
    }
  })();
  return {
    port: listener.addr.port,
    get connections() {
      return held.length;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const conn of held) {
        try {
          conn.close();
        } catch {
          // Already closed by the peer's end.
        }
      }
    },
  };
}
