/** The messages between worker_pool.ts and its workers (worker.ts). */
import type { PaletteBandRequest } from "./palette_bands.ts";
import type { BandRequest, DeflatedBand } from "./png_bands.ts";
import type { PngInput } from "./png_filters.ts";
import type { Quantised } from "./png_wasm.ts";
import type { ExportPlan } from "./presets.ts";

/**
 * What a worker is asked to do: a whole export; a decode to the upright pixels a lossless PNG
 * is written from (so its bands can be spread over several workers), or one such band; the
 * same for a palette PNG: a decode and quantisation, or one band remapped to the palette.
 */
export type WorkerJob =
  | { kind: "export"; input: ArrayBuffer; plan: ExportPlan }
  | { kind: "pixels"; input: ArrayBuffer; plan: ExportPlan }
  | { kind: "band"; band: BandRequest }
  | { kind: "palette"; input: ArrayBuffer; plan: ExportPlan }
  | { kind: "paletteBand"; band: PaletteBandRequest };

export type WorkerOutput =
  | { kind: "export"; bytes: Uint8Array<ArrayBuffer> }
  | { kind: "pixels"; image: PngInput }
  | { kind: "band"; band: DeflatedBand }
  /** The PNG, when there is one, lacks the upload's ICC profile (the exporter adds it). */
  | { kind: "palette"; quantised: Quantised };

export interface WorkerRequest {
  id: number;
  job: WorkerJob;
}

export type WorkerReply =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "done"; id: number; output: WorkerOutput }
  | { type: "error"; id: number; stage: "decode" | "encode"; message: string };
