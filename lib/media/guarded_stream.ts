import { METRICS } from "../telemetry/metrics.ts";

/** Why a proxied body was cut short. */
export class MediaStreamError extends Error {
  constructor(readonly reason: "too_large" | "idle" | "upstream", message: string) {
    super(message);
    this.name = "MediaStreamError";
  }
}

export interface StreamGuardOptions {
  /** Most bytes allowed through; one more and the stream is cut. */
  maxBytes: number;
  /** Longest pause between chunks before the stream is cut. */
  idleMs: number;
  /**
   * The Content-Length already sent to the client, if any. Then a cut ends the body early
   * instead of erroring it: the client sees a short body as an error all the same, and Deno
   * prints every errored response stream to stderr, which a declared length lets us avoid.
   */
  declaredLength?: number;
  /** Aborted when the client has gone: then an end is nobody's news and is not reported. */
  clientSignal?: AbortSignal;
  /** Called once when the stream is cut, to log and to abort the upstream fetch. */
  onTrip(error: MediaStreamError): void;
}

/**
 * Wraps a proxied body without buffering it: chunks are pulled one at a time under the
 * client's backpressure, and the body is cut past the byte cap, after an idle pause, or when
 * the upstream breaks off. Cancellation by the client cancels the upstream body.
 */
export function guardedBody(
  upstream: ReadableStream<Uint8Array>,
  options: StreamGuardOptions,
): ReadableStream<Uint8Array> {
  const reader = upstream.getReader();
  let passed = 0;
  let lastProgress = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let controller: ReadableStreamDefaultController<Uint8Array>;
  let done = false;

  const stop = () => {
    done = true;
    clearTimeout(timer);
    timer = undefined;
  };
  const trip = (error: MediaStreamError) => {
    if (done) return;
    stop();
    reader.cancel(error).catch(() => {});
    if (options.clientSignal?.aborted) return controller.close();
    options.onTrip(error);
    if (options.declaredLength !== undefined) controller.close();
    else controller.error(error);
  };
  // One timer re-armed lazily, instead of a new timer per chunk (thousands per video).
  const arm = (delay: number) => {
    timer = setTimeout(() => {
      const idle = performance.now() - lastProgress;
      if (idle >= options.idleMs) {
        trip(new MediaStreamError("idle", `no body progress for ${options.idleMs} ms`));
      } else {
        arm(options.idleMs - idle);
      }
    }, delay);
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      arm(options.idleMs);
    },
    async pull(c) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return trip(new MediaStreamError("upstream", message));
      }
      if (done) return;
      if (result.done) {
        stop();
        return c.close();
      }
      passed += result.value.byteLength;
      if (passed > options.maxBytes) {
        return trip(new MediaStreamError("too_large", `body exceeds ${options.maxBytes} bytes`));
      }
      lastProgress = performance.now();
      METRICS.proxyBytes.inc(result.value.byteLength);
      c.enqueue(result.value);
    },
    cancel(reason) {
      stop();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
