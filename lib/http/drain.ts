import { errorEnvelope, upstreamUnavailable } from "../errors.ts";
import type { Logger } from "../log.ts";

type Handler = (request: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;

/**
 * Graceful shutdown around a Deno.serve handler. Deno's `server.shutdown()` lets in-flight
 * handlers finish but cuts request bodies still being uploaded (the read fails with
 * BadResource), so an export whose upload is mid-way would be lost. The gate therefore drains
 * in two steps: `closeGate()` answers new requests 503 and waits (bounded) until every body
 * that is being received has arrived; only then should the caller shut the listener down.
 */
export function createDrainGate(handler: Handler, publicBaseUrl?: string) {
  let closed = false;
  let receiving = 0;
  let allReceived: PromiseWithResolvers<void> | null = null;

  function received() {
    receiving--;
    if (receiving === 0) allReceived?.resolve();
  }

  function refuse(request: Request): Response {
    const error = upstreamUnavailable("The service is shutting down.", {
      hint: "Retry in a moment; another instance (or this one, restarted) will answer.",
    });
    const base = publicBaseUrl ?? new URL(request.url).origin;
    return Response.json(errorEnvelope(error, base), {
      status: 503,
      headers: { "Retry-After": "1", Connection: "close", "X-Request-Id": crypto.randomUUID() },
    });
  }

  const fetch: Handler = (request, info) => {
    if (closed) return refuse(request);
    if (!request.body) return handler(request, info);
    receiving++;
    let done = false;
    const settle = () => {
      if (!done) received();
      done = true;
    };
    // The pass-through only observes the end of the upload; chunks flow on untouched.
    const body = request.body.pipeThrough(new TransformStream({ flush: settle }));
    const tracked = new Request(request, { body, duplex: "half" } as RequestInit);
    return Promise.resolve(handler(tracked, info)).finally(settle);
  };

  /** Refuses new requests, then waits up to `timeoutMs` for uploads in progress to arrive. */
  async function closeGate(timeoutMs: number): Promise<boolean> {
    closed = true;
    if (receiving === 0) return true;
    allReceived = Promise.withResolvers<void>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => timer = setTimeout(resolve, timeoutMs, false));
    const ok = await Promise.race([allReceived.promise.then(() => true), timeout]);
    clearTimeout(timer);
    return ok;
  }

  return { fetch, closeGate };
}

export interface DrainOptions {
  gate: ReturnType<typeof createDrainGate>;
  server: Deno.HttpServer;
  log: Logger;
  /** The whole drain's bound; past it the service closes with requests in flight. */
  timeoutMs: number;
  /** Run one after another once the listener is closed. */
  close: Array<() => unknown>;
}

/**
 * The shutdown sequence for a signal: refuse new requests while uploads in progress arrive
 * (see createDrainGate), close the listener and let in-flight requests finish, all within
 * `timeoutMs`, then close every component in order. Resolves true once, for the first signal.
 */
export function drainThenClose(options: DrainOptions): (signal: string) => Promise<boolean> {
  const { gate, server, log, timeoutMs } = options;
  let stopping = false;
  return async (signal) => {
    if (stopping) return false;
    stopping = true;
    log.info("shutting down", { signal, drainTimeoutMs: timeoutMs });
    const started = Date.now();
    const deadline = started + timeoutMs;
    if (!await gate.closeGate(timeoutMs)) log.warn("uploads still arriving at the bound");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const drained = await Promise.race([
      server.shutdown().then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), false);
      }),
    ]);
    clearTimeout(timer);
    if (drained) log.info("drained", { ms: Date.now() - started });
    else log.warn("drain timed out; closing with requests in flight");
    // Each component closes even when one before it throws: a failed store close must not
    // leave the exporter's workers or the browser running, which would keep the process alive.
    let clean = true;
    for (const close of options.close) {
      try {
        await close();
      } catch (error) {
        clean = false;
        log.error("a component failed to close", { error });
      }
    }
    log.info("stopped", { clean });
    return true;
  };
}
