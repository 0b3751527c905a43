/**
 * The two processes bench/proxy.ts measures, so each one's RSS and CPU are its own:
 *   deno run -A bench/support/proxy_server.ts upstream           a media host + syndication CDN
 *   deno run -A bench/support/proxy_server.ts service <origin>   the service, upstreams at <origin>
 * Each prints one JSON line `{"port":N}` on stdout when it listens, and exits on SIGTERM.
 */
import { createLogger } from "../../lib/log.ts";
import { BENCH_POST, streamedResponse } from "../../testing/upstream_bodies.ts";
import { DEFAULT_UPSTREAMS } from "../../lib/upstreams.ts";
import { createTestApp } from "../../testing/app.ts";

export const VIDEO_BYTES = 200 * 1024 * 1024;
const CHUNK = new Uint8Array(1024 * 1024).fill(7);

/** The local upstream: a 200 MB video/mp4 (or `?mb=N`), and one post. */
function upstream(req: Request): Response {
  const url = new URL(req.url);
  if (url.pathname === "/tweet-result") return Response.json(BENCH_POST);
  const bytes = Number(url.searchParams.get("mb") ?? VIDEO_BYTES / 2 ** 20) * 2 ** 20;
  return streamedResponse(CHUNK, bytes, "video/mp4");
}

async function service(origin: string) {
  // The test helper's app: in-memory KV, no capture backend, a lazy exporter (unused here).
  const t = await createTestApp({
    deps: {
      log: createLogger("warn"),
      upstreams: { ...DEFAULT_UPSTREAMS, syndicationOrigin: origin, mediaOrigin: () => origin },
    },
  });
  // Reference only: the same bytes handed to Deno.serve untouched (Rust-to-Rust copy, no guard),
  // to show what the JS-side TransformStream (byte cap + idle timeout) costs.
  const raw = async (req: Request) => {
    const upstream = await fetch(`${origin}/bench.mp4${new URL(req.url).search}`);
    return new Response(upstream.body, { headers: upstream.headers });
  };
  return {
    // The handler info goes on to the app, as main.ts passes it (the proxy needs `completed`).
    fetch: (req: Request, info?: Deno.ServeHandlerInfo) =>
      new URL(req.url).pathname === "/__bench/raw" ? raw(req) : t.app.fetch(req, info),
    close: t.close,
  };
}

async function main() {
  const [role, origin] = Deno.args;
  const app = role === "service" ? await service(origin) : { fetch: upstream, close() {} };
  const server = Deno.serve({
    port: 0,
    hostname: "127.0.0.1",
    onListen: ({ port }) => Deno.stdout.write(new TextEncoder().encode(`{"port":${port}}\n`)),
  }, app.fetch);
  Deno.addSignalListener("SIGTERM", async () => {
    await server.shutdown();
    await app.close();
    Deno.exit(0);
  });
}

if (import.meta.main) await main();
