/**
 * Worker entry point of one cut (tiles.ts starts one per capture it cuts): streaming a long page
 * through its pieces and encoding them takes about a second, which must not stall the request
 * thread.
 */
import { cutRows } from "./cut_rows.ts";
import type { CutJob } from "./cut_types.ts";

/** What tiles.ts posts: the job with its source as a buffer to transfer. */
export interface CutRequest extends Omit<CutJob, "source"> {
  source: ArrayBuffer;
}

/** Each piece's file, in the job's order, or why there are none. */
export type CutReply = { pieces: ArrayBuffer[] } | { error: string };

// Typed view of the worker global: this file is checked with the window lib like the rest.
const scope = self as unknown as {
  postMessage(message: CutReply, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<CutRequest>) => void) | null;
};

scope.onmessage = async ({ data: { source, ...job } }) => {
  try {
    const pieces = (await cutRows({ ...job, source: new Uint8Array(source) })).map((bytes) =>
      bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer
    );
    scope.postMessage({ pieces }, pieces);
  } catch (error) {
    scope.postMessage({ error: String(error) });
  }
};
