/**
 * Real HTTP servers on 127.0.0.1 that play the syndication and media hosts in tests, and an app
 * whose `upstreams` point at them (the injected origin resolver of lib/upstreams.ts).
 */
import { createTestApp, type TestAppOptions } from "./app.ts";
import { DEFAULT_UPSTREAMS, type MediaHost, type Upstreams } from "../lib/upstreams.ts";

/** A 4x4 opaque PNG (rgb 200,30,60), small enough to inline. */
export const TINY_PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAYAAACp8Z5+AAAAEklEQVR4nGM4IWfzHxkzkC4AAICIIhGmfP8LAAAAAElFTkSuQmCC",
  ),
  (ch) => ch.charCodeAt(0),
);

export interface SeenRequest {
  method: string;
  url: URL;
  headers: Headers;
}

export type UpstreamHandler = (req: Request, url: URL) => Response | Promise<Response>;

export interface LoopbackUpstream {
  origin: string;
  /** Every request the server received, in order. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** Starts a loopback server answering with `handler`, recording what it was asked. */
export function startUpstream(handler: UpstreamHandler): LoopbackUpstream {
  const seen: SeenRequest[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => {
    const url = new URL(req.url);
    seen.push({ method: req.method, url, headers: req.headers });
    return handler(req, url);
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    seen,
    close: () => server.shutdown(),
  };
}

/** Resolves once the peer of `req` goes away (for handlers that must hang until aborted). */
export function untilAborted(req: Request): Promise<void> {
  return new Promise((resolve) => {
    if (req.signal.aborted) resolve();
    req.signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** A body that sends `chunks` chunks of `size` bytes, then hangs until the reader cancels. */
export function endlessBody(size: number, chunks: number, onCancel: () => void) {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < chunks) controller.enqueue(new Uint8Array(size));
      // After `chunks`, pull returns without enqueueing: the stream just stops moving.
    },
    cancel: onCancel,
  });
}

/** An app whose upstreams are the given loopback origins, plus any budget overrides. */
export function appWithUpstreams(
  upstreams: Partial<Omit<Upstreams, "mediaOrigin">> & {
    media?: Partial<Record<MediaHost, string>> | string;
  },
  options: TestAppOptions = {},
) {
  const { media, ...rest } = upstreams;
  const mediaOrigin = (host: MediaHost) => {
    if (typeof media === "string") return media;
    // An unmapped host points at a closed port, so an unexpected hop fails loudly.
    return media?.[host] ?? "http://127.0.0.1:9";
  };
  return createTestApp({
    ...options,
    deps: { ...options.deps, upstreams: { ...DEFAULT_UPSTREAMS, ...rest, mediaOrigin } },
  });
}
