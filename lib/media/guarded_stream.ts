import { METRICS } from "../telemetry/metrics.ts";

/** Why a proxied body was cut short. */
export class MediaStreamError extends Error {
  constructor(readonly reason: "too_large" | "idle", message: string) {
    super(message);
    this.name = "MediaStreamError";
  }
}

export interface StreamGuardOptions {
  /** Most bytes allowed through; one more and the stream errors. */
  maxBytes: number;
  /** Longest pause between chunks before the stream errors. */
  idleMs: number;
  /** Called once when the guard trips, to abort the upstream fetch. */
  onTrip(error: MediaStreamError): void;
}

/**
 * A pass-through for a proxied body that never buffers it: chunks flow one at a time under the
 * stream's backpressure, and the stream errors (closing both sockets) past the byte cap or after
 * an idle pause. Cancellation by the client propagates upstream through pipeThrough.
 */
export function guardedStream(
  options: StreamGuardOptions,
): TransformStream<Uint8Array, Uint8Array> {
  let passed = 0;
  let lastProgress = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let controller: TransformStreamDefaultController<Uint8Array>;

  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const trip = (error: MediaStreamError) => {
    stop();
    options.onTrip(error);
    controller.error(error);
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

  return new TransformStream<Uint8Array, Uint8Array>({
    start(c) {
      controller = c;
      arm(options.idleMs);
    },
    transform(chunk, c) {
      passed += chunk.byteLength;
      if (passed > options.maxBytes) {
        trip(new MediaStreamError("too_large", `body exceeds ${options.maxBytes} bytes`));
        return;
      }
      lastProgress = performance.now();
      METRICS.proxyBytes.inc(chunk.byteLength);
      c.enqueue(chunk);
    },
    flush: stop,
    cancel: stop,
  });
}
