/**
 * An image made small enough for a client that limits image size (MCP clients, for one): scaled
 * down to a longest side, then re-encoded by the exporter (so the encoder queue, the Workers and
 * the presets are the export's) until its base64 form fits a byte budget. The scale-down runs
 * in libvips where sharp loads and in our own area-averaging code on the wasm path, in a Worker
 * (on the calling thread only where Workers cannot start).
 *
 * Inputs are images this service encoded (captures, exports): upright, without EXIF.
 */
import { base64Length } from "../bytes.ts";
import type { ImageExporter } from "./exporter.ts";
import { readImageInfo, sniffKind } from "./image_info.ts";
import type { DownscaleTarget } from "./downscale.ts";
import type { DownscaleReply, DownscaleRequest } from "./downscale_worker.ts";
import { runInWorker } from "./one_shot_worker.ts";
import { canStartWorkers } from "./worker_pool.ts";
import { CONTENT_TYPES, type ExportFormat, type ImageKind, MAX_PIXELS } from "./presets.ts";
import type { QualityPreset } from "./presets.ts";
import { loadSharp } from "./sharp.ts";

export interface FitLimits {
  /** Longest side in pixels. */
  maxSide: number;
  /** Length of the base64 text of the file. */
  maxBase64Bytes: number;
}

export interface FittedImage {
  bytes: Uint8Array<ArrayBuffer>;
  format: ExportFormat;
  contentType: string;
  width: number;
  height: number;
}

// Each round that still misses the budget shrinks the sides by the square root of the miss,
// with this margin; four rounds reach any budget a real image can miss.
const MAX_ROUNDS = 4;
const MARGIN = 0.9;
// How much smaller than its input a re-encode in the input's own format is expected to get.
const OWN_FORMAT_GAIN = 1.5;

/** Whether `bytes` (an image of width x height) is within `limits` as it is. */
export function fitsLimits(bytes: number, width: number, height: number, limits: FitLimits) {
  return Math.max(width, height) <= limits.maxSide && base64Length(bytes) <= limits.maxBase64Bytes;
}

/**
 * `input` scaled and re-encoded to fit `limits`, or null when it already fits (or is not an
 * image we can read). A PNG stays PNG if that fits, else becomes JPEG; the sides shrink further
 * only when even JPEG at the medium preset misses the budget.
 */
export async function fitImage(
  input: Uint8Array,
  { limits, exporter }: { limits: FitLimits; exporter: ImageExporter },
): Promise<FittedImage | null> {
  const kind = sniffKind(input);
  const info = kind && readImageInfo(kind, input);
  if (!kind || !info || fitsLimits(input.length, info.width, info.height, limits)) return null;
  const longest = Math.max(info.width, info.height);
  // The exporter refuses more than MAX_PIXELS; a scaled image never needs to be refused.
  let factor = Math.min(
    1,
    limits.maxSide / longest,
    Math.sqrt(MAX_PIXELS / (info.width * info.height)),
  );
  const budget = (limits.maxBase64Bytes * 3) / 4;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const width = Math.max(1, Math.floor(info.width * factor));
    const height = Math.max(1, Math.floor(info.height * factor));
    const source = factor < 1
      ? await downscale(input, { kind, width, height, encoder: exporter.encoder })
      : input;
    // Re-encoding in its own format saves a third at best (Chromium's PNGs are written fast):
    // an image further over the budget goes straight to JPEG, saving seconds on a large one.
    const ownCanFit = input.length * factor * factor <= budget * OWN_FORMAT_GAIN;
    let smallest = Infinity;
    for (const [format, preset] of encodings(kind).slice(ownCanFit ? 0 : 1)) {
      // The exporter may hand its input to a Worker (detaching it): each attempt gets a copy
      // (a copy of its own: a Buffer's slice() would share, and detach, Node's buffer pool).
      const out = await exporter.export(new Uint8Array(source), { format, preset });
      if (fitsLimits(out.bytes.length, out.width, out.height, limits)) {
        return { bytes: out.bytes, format, contentType: CONTENT_TYPES[format], ...dims(out) };
      }
      smallest = Math.min(smallest, out.bytes.length);
    }
    factor *= Math.min(1, Math.sqrt(limits.maxBase64Bytes / base64Length(smallest))) * MARGIN;
  }
  throw new Error(`no encoding of a ${info.width}x${info.height} image fits the limits`);
}

function dims(image: { width: number; height: number }) {
  return { width: image.width, height: image.height };
}

/** Tried in order: the input's own format first (PNG lossless, lossy ones at high), then JPEG. */
function encodings(kind: ImageKind): Array<[ExportFormat, QualityPreset]> {
  const own: [ExportFormat, QualityPreset] = kind === "png" ? ["png", "medium"] : [kind, "high"];
  // A JPEG input's own format is JPEG high already: the first entry stays its own.
  const rest: Array<[ExportFormat, QualityPreset]> = kind === "jpeg"
    ? [["jpeg", "medium"]]
    : [["jpeg", "high"], ["jpeg", "medium"]];
  return [own, ...rest];
}

/**
 * `input` at width x height as a quickly written PNG: by libvips when the exporter runs on
 * sharp, else decoded and averaged in a Worker of its own (on this thread where none can start).
 */
async function downscale(
  input: Uint8Array,
  target: DownscaleTarget & { encoder: ImageExporter["encoder"] },
): Promise<Uint8Array<ArrayBuffer>> {
  const { width, height } = target;
  if (target.encoder === "sharp") {
    const loaded = await loadSharp();
    if ("sharp" in loaded) {
      const image = loaded.sharp(input, { limitInputPixels: false }).resize(width, height, {
        fit: "fill",
      });
      const png = await image.png({ compressionLevel: 1 }).toBuffer();
      return new Uint8Array(png.buffer as ArrayBuffer, png.byteOffset, png.byteLength);
    }
  }
  const { kind } = target;
  if (await canStartWorkers()) return await inWorker(input, { kind, width, height });
  // Loaded on demand, as the exporter does: with sharp this thread never compiles the codecs.
  const { downscaleToPng } = await import("./downscale.ts");
  return await downscaleToPng(input, { kind, width, height });
}

const WORKER_URL = new URL("./downscale_worker.ts", import.meta.url);

async function inWorker(
  input: Uint8Array,
  target: DownscaleTarget,
): Promise<Uint8Array<ArrayBuffer>> {
  const copy = new Uint8Array(input);
  const request: DownscaleRequest = { input: copy.buffer, ...target };
  const answer = await runInWorker<DownscaleReply>(WORKER_URL, request, [copy.buffer]);
  return new Uint8Array(answer.png);
}
