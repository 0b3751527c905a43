/**
 * The ImageExporter behind POST /api/export: checks the upload from its header, then runs the
 * export on the sharp fast path when it loads, or on the wasm codecs in a Worker pool otherwise.
 */
import type { Logger } from "../log.ts";
import { swapsAxes } from "./exif.ts";
import { embedIcc } from "./icc.ts";
import { type ExportRequest, planExport, undecodable } from "./plan.ts";
import { ExportFailure } from "./errors.ts";
import { exportAnswer } from "./failures.ts";
import { CONTENT_TYPES, type ExportPlan, EXTENSIONS, PRESETS } from "./presets.ts";
import { BANDED_REMAP_MIN_PIXELS } from "./palette_bands.ts";
import { bandCount } from "./png_bands.ts";
import type { PngInput } from "./png_filters.ts";
import { JobScheduler } from "./scheduler.ts";
import { exportWithSharp, loadSharp, warmSharp } from "./sharp.ts";
import { encodePaletteSpread, encodeSpread } from "./spread.ts";
import { canStartWorkers, WorkerPool } from "./worker_pool.ts";
import { outcomeOf, startStage, traced } from "../telemetry/trace.ts";

export type EncoderName = "sharp" | "wasm";

export interface ExportResult {
  bytes: Uint8Array<ArrayBuffer>;
  contentType: string;
  extension: string;
  /** Output dimensions (the input's, upright). */
  width: number;
  height: number;
}

export interface ImageExporter {
  /** Which codec path runs the exports: "sharp" (native) or "wasm" (jSquash). */
  readonly encoder: EncoderName;
  /** Loads and warms the codecs (and workers) so the first request pays nothing. */
  warm(): Promise<void>;
  /** Holds a place for an upload of `bytes` before its body is read; 503 when none is left. */
  reserve(bytes?: number): () => void;
  /** Recompresses one upload. `input` may be transferred to a worker (left detached). */
  export(input: Uint8Array, request: ExportRequest): Promise<ExportResult>;
  close(): Promise<void>;
}

export interface ExporterOptions {
  log?: Logger;
  /** Regular slots (and workers); defaults to the number of cores. */
  slots?: number;
  /** Ceiling on waiting exports (time and bytes admit first); defaults to 16 per slot. */
  maxQueue?: number;
  /** wasm only: encode on the calling thread instead of in Workers (benchmarks, no-Worker hosts). */
  inline?: boolean;
}

// A phone screenshot (375x667 at 2x is exactly 1 MP) encodes in tens of ms: such images get a
// reserved slot so they never wait behind 1080p exports.
const SMALL_MAX_PIXELS = 1_000_000;

type Runner = (
  slot: number,
  input: Uint8Array,
  plan: ExportPlan,
) => Promise<Uint8Array<ArrayBuffer>>;

function schedulerFor(options: ExporterOptions): JobScheduler {
  const slots = options.slots ?? navigator.hardwareConcurrency ?? 1;
  return new JobScheduler({
    slots,
    smallSlots: 1,
    smallMaxPixels: SMALL_MAX_PIXELS,
    maxQueue: options.maxQueue ?? slots * 16,
  });
}

/**
 * The PNG of a lossless preset from upright pixels, its bands on the export's own worker and on
 * any idle one the scheduler lends.
 */
function spreadEncoder(pool: WorkerPool, scheduler: JobScheduler, slot: number) {
  return (image: PngInput, plan: ExportPlan) => {
    const png = PRESETS[plan.preset].png;
    if (png.mode !== "lossless") throw new Error(`${plan.preset} PNG is not lossless`);
    return encodeSpread(image, png, {
      slot,
      borrow: () => scheduler.borrow(),
      runBand: (bandSlot, band) => pool.band(bandSlot, band),
    });
  };
}

/**
 * The PNG `low` of an upload on the wasm path: decoded and quantised on the export's worker, then,
 * for an image large enough to be remapped in bands, its bands spread like a lossless PNG's.
 */
async function spreadPalette(
  pool: WorkerPool,
  scheduler: JobScheduler,
  job: { slot: number; input: Uint8Array; plan: ExportPlan },
): Promise<Uint8Array<ArrayBuffer>> {
  const { slot, plan } = job;
  const quantised = await pool.palette(slot, job.input, plan);
  if ("png" in quantised) return quantised.png;
  const png = PRESETS[plan.preset].png;
  return encodePaletteSpread(quantised.image, { palette: quantised.palette, level: png.level }, {
    slot,
    borrow: () => scheduler.borrow(),
    runBand: (bandSlot, band) => pool.paletteBand(bandSlot, band),
  });
}

function exporterOf(
  encoder: EncoderName,
  scheduler: JobScheduler,
  hooks: { run: Runner; warm(): Promise<void>; close(): void },
): ImageExporter {
  return {
    encoder,
    warm: () => hooks.warm(),
    reserve: (bytes) => scheduler.reserve(bytes),
    async export(input, request) {
      const plan = planExport(input, request);
      let bytes: Uint8Array<ArrayBuffer>;
      // Waiting for a slot, then decode + encode as one stage: both run inside libvips' one
      // pipeline (sharp) or one worker message (wasm), so the split is not visible from here.
      const admission = startStage("export.admission");
      try {
        bytes = await scheduler.run(plan.width * plan.height, (slot) => {
          admission.end();
          return traced("export.transcode", { path: encoder }, () => hooks.run(slot, input, plan));
        });
      } catch (error) {
        // The stage's outcome is the code the client will get.
        admission.end(outcomeOf(exportAnswer(error)));
        if (error instanceof ExportFailure) throw error;
        throw undecodable(error instanceof Error ? error.message : String(error));
      }
      const upright = swapsAxes(plan.orientation);
      return {
        bytes,
        contentType: CONTENT_TYPES[plan.format],
        extension: EXTENSIONS[plan.format],
        width: upright ? plan.height : plan.width,
        height: upright ? plan.width : plan.height,
      };
    },
    close: () => Promise.resolve(hooks.close()),
  };
}

function isLossless(plan: ExportPlan): boolean {
  return plan.format === "png" && PRESETS[plan.preset].png.mode === "lossless";
}

/** A palette PNG whose rows libimagequant can remap in bands (quantise.ts). */
function isBandedPalette(plan: ExportPlan): boolean {
  return plan.format === "png" && PRESETS[plan.preset].png.mode === "palette" &&
    plan.width * plan.height > BANDED_REMAP_MIN_PIXELS;
}

/** The jSquash path; Workers are started by `warm()` (or by the first export). */
export function createWasmExporter(options: ExporterOptions = {}): ImageExporter {
  const slots = options.slots ?? navigator.hardwareConcurrency ?? 1;
  let inline = options.inline ?? false;
  const pool = inline ? undefined : new WorkerPool(slots + 1);
  const scheduler = schedulerFor({ ...options, slots });
  return exporterOf("wasm", scheduler, {
    async run(slot, input, plan) {
      if (inline) return (await wasmCodecs()).exportWithWasm(input, plan);
      // Only a PNG of several bands can share out its work; anything else is one job.
      let png: Uint8Array<ArrayBuffer>;
      if (isBandedPalette(plan)) {
        png = await spreadPalette(pool!, scheduler, { slot, input, plan });
      } else if (isLossless(plan) && bandCount(plan.width, plan.height) >= 2) {
        const image = await pool!.pixels(slot, input, plan);
        png = await spreadEncoder(pool!, scheduler, slot)(image, plan);
      } else {
        return pool!.run(slot, input, plan);
      }
      return plan.icc ? embedIcc("png", png, plan.icc) : png;
    },
    async warm() {
      if (!inline && !(await canStartWorkers())) {
        options.log?.warn("wasm workers need read access to their module; encoding inline");
        inline = true;
      }
      if (inline) return (await wasmCodecs()).initWasmCodecs();
      try {
        await pool!.warm();
      } catch (error) {
        // Hosts without Workers still export, only on the request thread.
        options.log?.warn("wasm workers unavailable; encoding on the request thread", { error });
        inline = true;
        pool!.close();
        await (await wasmCodecs()).initWasmCodecs();
      }
    },
    close: () => pool?.close(),
  });
}

// Loaded on demand: with sharp or Workers the request thread never compiles the codecs.
function wasmCodecs() {
  return import("./wasm.ts");
}

/**
 * The sharp path, or the reason sharp cannot load here. PNG `high` is written by the band
 * encoder in wasm-path Workers (one per slot, warmed in the background), as on the wasm path, so
 * both write the same bytes from the same pixels.
 */
export async function createSharpExporter(
  options: ExporterOptions = {},
): Promise<{ exporter: ImageExporter } | { reason: string }> {
  const loaded = await loadSharp();
  if (!("sharp" in loaded)) return loaded;
  const { sharp } = loaded;
  const slots = options.slots ?? navigator.hardwareConcurrency ?? 1;
  // Without Workers the band encoder would block the request thread: libpng's filters instead.
  const pool = await canStartWorkers() ? new WorkerPool(slots + 1) : undefined;
  const scheduler = schedulerFor({ ...options, slots });
  let closed = false;
  const exporter = exporterOf("sharp", scheduler, {
    // libvips works on its own threads, the band encoder in Workers; this thread only awaits.
    run: (slot, input, plan) => {
      const encode = pool && spreadEncoder(pool, scheduler, slot);
      return exportWithSharp(sharp, {
        input,
        plan,
        ...(encode ? { encodeLossless: (image: PngInput) => encode(image, plan) } : {}),
      });
    },
    async warm() {
      await warmSharp(sharp);
      // In the background: the first PNG `high` export should not pay for starting a Worker.
      pool?.warm().catch((error) => {
        if (!closed) options.log?.warn("png optimiser workers failed to start", { error });
      });
    },
    close: () => {
      closed = true;
      pool?.close();
    },
  });
  return { exporter };
}

/** sharp when it loads, the wasm path otherwise; logs which one serves exports, warmed. */
export async function createImageExporter(options: ExporterOptions = {}): Promise<ImageExporter> {
  const sharp = await createSharpExporter(options);
  const exporter = "exporter" in sharp ? sharp.exporter : createWasmExporter(options);
  await exporter.warm();
  options.log?.info("image exporter ready", {
    encoder: exporter.encoder,
    ...("reason" in sharp ? { sharpUnavailable: sharp.reason } : {}),
  });
  return exporter;
}
