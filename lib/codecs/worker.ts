/** Worker entry point: warms the wasm codecs, then runs exports posted by worker_pool.ts. */
import { CodecError } from "./errors.ts";
import { exportWithWasm, initWasmCodecs } from "./wasm.ts";
import type { ExportPlan } from "./presets.ts";

export interface WorkerRequest {
  id: number;
  /** The upload, transferred (not copied) to the worker. */
  input: ArrayBuffer;
  plan: ExportPlan;
}

export type WorkerReply =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "done"; id: number; output: ArrayBuffer }
  | { type: "error"; id: number; stage: "decode" | "encode"; message: string };

// Typed view of the worker global: this file is checked with the window lib like the rest.
const scope = self as unknown as {
  postMessage(message: WorkerReply, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
};

const warmed = initWasmCodecs();
warmed.then(
  () => scope.postMessage({ type: "ready" }),
  (error) => scope.postMessage({ type: "failed", message: String(error) }),
);

scope.onmessage = async ({ data: { id, input, plan } }) => {
  try {
    await warmed;
    const output = await exportWithWasm(new Uint8Array(input), plan);
    const buffer = output.byteOffset === 0 && output.byteLength === output.buffer.byteLength
      ? output.buffer as ArrayBuffer
      : output.slice().buffer;
    scope.postMessage({ type: "done", id, output: buffer }, [buffer]);
  } catch (error) {
    const stage = error instanceof CodecError ? error.stage : "encode";
    scope.postMessage({ type: "error", id, stage, message: String(error) });
  }
};
