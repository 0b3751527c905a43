/**
 * Our spans, through `npm:@opentelemetry/api`: Deno's built-in OpenTelemetry (OTEL_DENO=true,
 * or Deno Deploy) exports them beside its own `Deno.serve` and `fetch` spans; without it they
 * cost a no-op. Attributes are small closed sets a person filters on (backend, cached,
 * deviceType, format, preset, outcome): never URLs, query strings, ids, tokens or error text.
 */
import { type Attributes, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { ApiError } from "../errors.ts";

const tracer = trace.getTracer("shotline");

/** Runs `work` in a child span of the active one; the span ends with it and records its outcome. */
export async function traced<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return await tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      const result = await work(span);
      span.setAttribute("outcome", "ok");
      return result;
    } catch (error) {
      const outcome = outcomeOf(error);
      span.setAttribute("outcome", outcome);
      // The code only: an error's message may carry the page's URL.
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A failure as a label: the API error code, "aborted", or "error". */
export function outcomeOf(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  if (error instanceof Error && error.name === "AbortError") return "aborted";
  return "error";
}

/** A span that is started now and ended by the caller, once (later calls are ignored). */
export function startStage(name: string, attributes: Attributes = {}) {
  const span = tracer.startSpan(name, { attributes });
  let ended = false;
  return {
    end(outcome = "ok", more: Attributes = {}) {
      if (ended) return;
      ended = true;
      span.setAttributes({ ...more, outcome });
      if (outcome !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      span.end();
    },
  };
}

/** The same response, with a span named `name` that lasts until its body is sent or cut. */
export function tracedBody(
  response: Response,
  name: string,
  attributes: Attributes,
  completed?: Promise<void>,
): Response {
  if (!response.body) return response;
  const stage = startStage(name, attributes);
  if (completed) {
    // On a real socket Deno says when the body has been sent or cut: the body stays untouched,
    // so a stream Deno copies socket to socket keeps doing so.
    const bytes = Number(response.headers.get("content-length") ?? 0);
    completed.then(() => stage.end("ok", { bytes }), (reason) => stage.end(outcomeOf(reason)));
    return response;
  }
  let bytes = 0;
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
      flush: () => stage.end("ok", { bytes }),
      cancel: (reason) => stage.end(outcomeOf(reason), { bytes }),
    }),
  );
  return new Response(counted, response);
}
