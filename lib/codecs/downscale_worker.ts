/**
 * Worker entry point of one scale-down (fit.ts starts one per image that needs it: rare, and a
 * 1920x16384 page takes seconds to decode and average, which must not stall the request thread).
 */
import { type DownscaleTarget, downscaleToPng } from "./downscale.ts";

/** What fit.ts posts: the encoded image and the size to scale it to. */
export interface DownscaleRequest extends DownscaleTarget {
  input: ArrayBuffer;
}

/** The PNG, or why there is none. */
export type DownscaleReply = { png: ArrayBuffer } | { error: string };

// Typed view of the worker global: this file is checked with the window lib like the rest.
const scope = self as unknown as {
  postMessage(message: DownscaleReply, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<DownscaleRequest>) => void) | null;
};

scope.onmessage = async ({ data: { input, ...target } }) => {
  try {
    const png = await downscaleToPng(new Uint8Array(input), target);
    scope.postMessage({ png: png.buffer }, [png.buffer]);
  } catch (error) {
    scope.postMessage({ error: String(error) });
  }
};
