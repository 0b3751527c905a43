/**
 * The ImageExporter behind POST /api/export: checks the upload from its header, then runs the
 * export on the sharp fast path when it loads, or on the wasm codecs in a Worker pool otherwise.
 */
import { ApiError, invalidRequest, unsupportedValue } from "../errors.ts";
import type { Logger } from "../log.ts";
import { swapsAxes } from "./exif.ts";
import { iccColourSpace, readIcc } from "./icc.ts";
import { readImageInfo, sniffKind } from "./image_info.ts";
import {
  CONTENT_TYPES,
  type ExportFormat,
  type ExportPlan,
  EXTENSIONS,
  MAX_PIXELS,
  MAX_SIDE,
  type QualityPreset,
} from "./presets.ts";
import { JobScheduler } from "./scheduler.ts";
import { exportWithSharp, loadSharp, warmSharp } from "./sharp.ts";
import { canStartWorkers, WorkerPool } from "./worker_pool.ts";
import { outcomeOf, startStage, traced } from "../telemetry/trace.ts";

export type EncoderName = "sharp" | "wasm";

export interface ExportRequest {
  format: ExportFormat;
  preset: QualityPreset;
}

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

/** A decode/encode failure: 500 with a hint, the internal detail only in the logs. */
export class ImageProcessingError extends ApiError {
  constructor(readonly detail: string) {
    super(500, "internal_error", "The image could not be processed.", {
      hint: "The file looks like a PNG, JPEG or WebP but could not be decoded; check that it " +
        "opens in an image viewer, export it again and retry.",
    });
  }
}

/** Checks an upload from its bytes alone (type by magic bytes, size from the header). */
export function planExport(input: Uint8Array, request: ExportRequest): ExportPlan {
  if (input.length === 0) {
    throw invalidRequest("The image part is empty.", {
      hint: "Attach the picture to export as the multipart part named image.",
    });
  }
  const kind = sniffKind(input);
  if (!kind) {
    throw unsupportedValue("image must be a PNG, JPEG or WebP file.", {
      hint: "Upload PNG, JPEG or WebP; the type is read from the file's bytes, not its name " +
        "or declared Content-Type.",
    });
  }
  const info = readImageInfo(kind, input);
  if (!info) throw new ImageProcessingError(`unreadable ${kind} header`);
  if (info.animated) {
    throw unsupportedValue("Animated WebP images are not supported.", {
      hint: "Upload a still image (a single frame).",
    });
  }
  // unsupported_value, not invalid_request: the request is well-formed, but this image's size
  // is outside the supported range, as a format outside png/jpeg/webp would be.
  if (info.width * info.height > MAX_PIXELS || Math.max(info.width, info.height) > MAX_SIDE) {
    throw unsupportedValue(
      `The image is ${info.width}x${info.height} pixels; at most ${MAX_PIXELS / 1e6} ` +
        `megapixels and ${MAX_SIDE} pixels per side are supported.`,
      { hint: "Scale the image down (or export a smaller region) and retry." },
    );
  }
  // A JPEG needs at least one Huffman-coded bit per 8x8 block; MozJPEG's decoder pads missing
  // scan data with grey instead of failing, so without this a 3 KB file that claims 49 MP would
  // cost seconds of encoding. The bound is half the true minimum, so no real file trips it.
  if (kind === "jpeg" && input.length < (info.width * info.height) / 1024) {
    throw new ImageProcessingError(
      `jpeg of ${input.length} bytes cannot hold ${info.width}x${info.height} pixels`,
    );
  }
  const { width, height, orientation, hasAlpha, cmyk } = info;
  // Only an RGB profile can describe the RGB output; grey and CMYK ones are converted away.
  const profile = readIcc(kind, input);
  const icc = profile && iccColourSpace(profile) === "RGB" ? profile.slice() : undefined;
  return { kind, ...request, width, height, orientation, hasAlpha, cmyk, ...(icc ? { icc } : {}) };
}

type Runner = (
  slot: number,
  input: Uint8Array,
  plan: ExportPlan,
) => Promise<Uint8Array<ArrayBuffer>>;

function exporterOf(
  encoder: EncoderName,
  options: ExporterOptions,
  hooks: { run: Runner; warm(): Promise<void>; close(): void },
): ImageExporter {
  const slots = options.slots ?? navigator.hardwareConcurrency ?? 1;
  const scheduler = new JobScheduler({
    slots,
    smallSlots: 1,
    smallMaxPixels: SMALL_MAX_PIXELS,
    maxQueue: options.maxQueue ?? slots * 16,
  });
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
        admission.end(outcomeOf(error));
        if (error instanceof ApiError) throw error;
        throw new ImageProcessingError(error instanceof Error ? error.message : String(error));
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

/** The jSquash path; Workers are started by `warm()` (or by the first export). */
export function createWasmExporter(options: ExporterOptions = {}): ImageExporter {
  const slots = options.slots ?? navigator.hardwareConcurrency ?? 1;
  let inline = options.inline ?? false;
  const pool = inline ? undefined : new WorkerPool(slots + 1);
  return exporterOf("wasm", { ...options, slots }, {
    run: async (slot, input, plan) =>
      inline ? (await wasmCodecs()).exportWithWasm(input, plan) : pool!.run(slot, input, plan),
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
 * The sharp path, or the reason sharp cannot load here. PNG `high` is refined by oxipng in wasm
 * Workers (one per slot, warmed in the background), as on the wasm path, so both agree on its size.
 */
export async function createSharpExporter(
  options: ExporterOptions = {},
): Promise<{ exporter: ImageExporter } | { reason: string }> {
  const loaded = await loadSharp();
  if (!("sharp" in loaded)) return loaded;
  const { sharp } = loaded;
  const slots = options.slots ?? navigator.hardwareConcurrency ?? 1;
  // Without Workers oxipng would block the request thread for a second: sharp's zlib 9 instead.
  const pool = await canStartWorkers() ? new WorkerPool(slots + 1) : undefined;
  let closed = false;
  const exporter = exporterOf("sharp", { ...options, slots }, {
    // libvips works on its own threads; the request thread only awaits.
    run: (slot, input, plan) =>
      exportWithSharp(
        sharp,
        input,
        plan,
        pool && ((png) => pool.run(slot, png, planExport(png, { format: "png", preset: "high" }))),
      ),
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
