/**
 * A request body read into one buffer as its chunks arrive, never joined in one piece: the
 * runtime's `arrayBuffer()` joins the chunks of a 25 to 33 MiB upload at the end in a single copy
 * (60 to 150 ms of the event loop on two loaded cores, more with its collection). Chunks are
 * copied into a buffer of the declared length, or kept and joined a slice per turn when no length
 * was declared. Kept in Hono's body cache, so the route's validator reads the same bytes.
 */
import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { copyInSlices, joinInSlices, SLICE_BYTES } from "./turns.ts";

/** The body of `c`'s request (read once; errors of the read are the stream's). */
export async function requestBytes(c: Context<AppEnv>): Promise<Uint8Array<ArrayBuffer>> {
  // Hono's cache holds promises: another reader converts from whichever it finds.
  const cached = c.req.bodyCache.arrayBuffer;
  if (cached) return new Uint8Array(await cached);
  const body = c.req.raw.body;
  const declared = Number(c.req.header("Content-Length") ?? NaN);
  const bytes = body === null
    ? new Uint8Array(0)
    : Number.isSafeInteger(declared) && declared >= 0
    ? await readInto(body, declared)
    : await readAndJoin(body);
  // Typed as the value, but Hono's readers call .then on whatever entry they find.
  c.req.bodyCache.arrayBuffer = Promise.resolve(bytes.buffer) as unknown as ArrayBuffer;
  return bytes;
}

/** A body of a declared length (the body limit has already refused one too long). */
async function readInto(body: ReadableStream<Uint8Array>, length: number) {
  const bytes = new Uint8Array(length);
  let at = 0;
  for await (const chunk of body) {
    // The HTTP server stops at the declared length; an in-process body might not.
    if (at + chunk.length > length) throw new RangeError("the body is longer than declared");
    await copyInSlices(bytes, at, chunk);
    at += chunk.length;
  }
  return at === length ? bytes : bytes.slice(0, at);
}

async function readAndJoin(body: ReadableStream<Uint8Array>) {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return await joinInSlices(chunks);
}

/** `bytes` as a body stream of slices that share its memory (a Request copies a whole buffer). */
export function sliceStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + SLICE_BYTES));
      at += SLICE_BYTES;
    },
  }, { highWaterMark: 0 });
}
