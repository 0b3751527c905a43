/**
 * Worker entry point: warms the wasm codecs, then runs the jobs posted by worker_pool.ts: whole
 * exports, decodes to upright pixels and bands of a lossless PNG (png_bands.ts), decodes to a
 * palette and bands of a palette PNG (palette_bands.ts).
 */
import { CodecError } from "./errors.ts";
import { deflateBand } from "./png_bands.ts";
import { deflatePaletteBand } from "./png_wasm.ts";
import { exportWithWasm, initWasmCodecs, pixelsForPng, quantisedForPng } from "./wasm.ts";
import type { WorkerJob, WorkerOutput, WorkerReply, WorkerRequest } from "./worker_types.ts";

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

scope.onmessage = async ({ data: { id, job } }) => {
  try {
    await warmed;
    const output = await run(job);
    scope.postMessage({ type: "done", id, output }, transferables(output));
  } catch (error) {
    const stage = error instanceof CodecError ? error.stage : "encode";
    scope.postMessage({ type: "error", id, stage, message: String(error) });
  }
};

async function run(job: WorkerJob): Promise<WorkerOutput> {
  if (job.kind === "band" || job.kind === "paletteBand") {
    const band = job.kind === "band" ? deflateBand(job.band) : deflatePaletteBand(job.band);
    return { kind: "band", band: { ...band, deflated: whole(band.deflated) } };
  }
  const input = new Uint8Array(job.input);
  if (job.kind === "pixels") {
    const image = await pixelsForPng(input, job.plan);
    return { kind: "pixels", image: { ...image, data: whole(image.data) } };
  }
  if (job.kind === "palette") {
    const quantised = await quantisedForPng(input, job.plan);
    return {
      kind: "palette",
      quantised: "png" in quantised
        ? { png: whole(quantised.png) }
        : { ...quantised, image: { ...quantised.image, data: whole(quantised.image.data) } },
    };
  }
  return { kind: "export", bytes: whole(await exportWithWasm(input, job.plan)) };
}

/** The output's large buffer, handed over rather than copied. */
function transferables(output: WorkerOutput): Transferable[] {
  const bytes = output.kind === "export"
    ? output.bytes
    : output.kind === "pixels"
    ? output.image.data
    : output.kind === "band"
    ? output.band.deflated
    : "png" in output.quantised
    ? output.quantised.png
    : output.quantised.image.data;
  return [bytes.buffer as ArrayBuffer];
}

/** `bytes` in a buffer of its own: posting a view would otherwise copy its whole buffer. */
function whole(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes as Uint8Array<ArrayBuffer>
    : bytes.slice();
}
