/**
 * A long capture as a vision model can read it. One image of a 20,000 px page scaled to fit a
 * client's limits leaves text a few pixels tall; models read best at about 1568 px on the long
 * side and 1.15 megapixels, larger images being scaled down by the model's own front end. So the
 * page is cut into full-resolution tiles each within those limits (planTiles), next to an
 * overview scaled to fit them (fitSize), all from one decode of the capture (cutImage).
 *
 * PNG pieces are lossless, pixel for pixel the capture's, written without row filters at zlib 6
 * (TILE_PNG in presets.ts): they are read once by a model, so speed matters more than the last
 * percent of size, and on screenshots that setting is both the faster and the smaller. A cut goes
 * through neither the exporter's queue nor its size check: a capture may be larger than one
 * export may be, and no piece of it is ever refused for that.
 */
import { cutWithSharp } from "./cut_sharp.ts";
import type { Piece, Rect } from "./cut_types.ts";
import type { CutReply, CutRequest } from "./cut_worker.ts";
import { ExportFailure } from "./errors.ts";
import type { ImageExporter } from "./exporter.ts";
import { readImageInfo, sniffKind } from "./image_info.ts";
import { runInWorker } from "./one_shot_worker.ts";
import { pngHeader } from "./png_rows.ts";
import {
  CONTENT_TYPES,
  type ExportFormat,
  MAX_PIXELS,
  type QualityPreset,
  WEBP_MAX_SIDE,
} from "./presets.ts";
import { loadSharp } from "./sharp.ts";
import { canStartWorkers } from "./worker_pool.ts";

export type { Piece, Rect };

/** What a model reads well: longest side and pixel count of one image. */
export interface VisionLimits {
  maxSide: number;
  maxPixels: number;
}

/** Defaults: 1568 px on the long side, about 1.15 megapixels. */
export const MODEL_IMAGE_LIMITS: VisionLimits = { maxSide: 1568, maxPixels: 1_150_000 };

/** A piece as written: its file and media type. */
export interface CutPiece extends Piece {
  bytes: Uint8Array;
  contentType: string;
}

export interface CutOptions {
  format: ExportFormat;
  /** JPEG and WebP quality preset, `high` when absent; PNG pieces are always lossless. */
  quality?: QualityPreset;
  /** Its codec path (sharp or wasm) cuts the image. */
  exporter: ImageExporter;
}

/** Whether a width x height image is within limits. */
export function withinLimits(
  size: { width: number; height: number },
  limits: VisionLimits,
): boolean {
  const { width, height } = size;
  return Math.max(width, height) <= limits.maxSide && width * height <= limits.maxPixels;
}

/**
 * Tiles covering `area` exactly (no overlap, no gap), each within `limits`, in reading order
 * (rows top to bottom, left to right in a row), as even as possible: the fewest columns so a
 * tile is at most maxSide wide (and a one-pixel row of it within maxPixels), then the fewest rows
 * so it is at most maxSide tall and within maxPixels; sizes differ by at most 1 px.
 */
export function planTiles(area: Rect, limits: VisionLimits): Rect[] {
  checkLimits(limits);
  const { x, y, width, height } = area;
  if (![x, y, width, height].every(Number.isInteger) || x < 0 || y < 0 || width < 1 || height < 1) {
    throw new RangeError(`not an area of whole pixels: ${JSON.stringify(area)}`);
  }
  const columns = Math.ceil(width / Math.min(limits.maxSide, limits.maxPixels));
  const widest = Math.ceil(width / columns);
  const tallest = Math.min(limits.maxSide, Math.floor(limits.maxPixels / widest));
  const rows = Math.ceil(height / tallest);
  const tiles: Rect[] = [];
  for (let row = 0; row < rows; row++) {
    const [top, bottom] = [split(height, rows, row), split(height, rows, row + 1)];
    for (let column = 0; column < columns; column++) {
      const [left, right] = [split(width, columns, column), split(width, columns, column + 1)];
      tiles.push({ x: x + left, y: y + top, width: right - left, height: bottom - top });
    }
  }
  return tiles;
}

/** Where the `index`th of `parts` even parts of `size` starts. */
function split(size: number, parts: number, index: number): number {
  return Math.floor((size * index) / parts);
}

/** The size `size` scaled down (never up) to fit limits, aspect kept, each side >= 1. */
export function fitSize(
  size: { width: number; height: number },
  limits: VisionLimits,
): { width: number; height: number } {
  checkLimits(limits);
  const { width, height } = size;
  const factor = Math.min(
    1,
    limits.maxSide / Math.max(width, height),
    Math.sqrt(limits.maxPixels / (width * height)),
  );
  if (factor === 1) return { width, height };
  // The epsilon keeps a side the limit names exactly (20000 x 1568 / 20000) from rounding below.
  const scaled = (side: number) => Math.max(1, Math.floor(side * factor + 1e-9));
  const fitted = { width: scaled(width), height: scaled(height) };
  return withinLimits(fitted, limits) ? fitted : {
    width: Math.max(1, Math.floor(width * factor)),
    height: Math.max(1, Math.floor(height * factor)),
  };
}

function checkLimits({ maxSide, maxPixels }: VisionLimits): void {
  if (
    !(Number.isInteger(maxSide) && maxSide >= 1 && Number.isInteger(maxPixels) && maxPixels >= 1)
  ) {
    throw new RangeError(`limits must be whole numbers of pixels: ${maxSide}, ${maxPixels}`);
  }
}

/**
 * Decodes `source` (PNG, JPEG or WebP) once, then crops (and scales down, area-averaged) each
 * piece and encodes it: with libvips when the exporter runs on sharp, else in a Worker of its own
 * (on this thread only where none can start), streaming a PNG's rows so the page is never held
 * whole. Inputs are images this service encoded (captures): upright, without EXIF.
 */
export async function cutImage(
  source: Uint8Array,
  pieces: Piece[],
  options: CutOptions,
): Promise<CutPiece[]> {
  const kind = sniffKind(source);
  const info = kind && readImageInfo(kind, source);
  if (!info) throw new ExportFailure({ kind: "not_an_image" });
  for (const piece of pieces) {
    checkPiece(piece, info);
    const { width, height } = piece;
    if (options.format === "webp" && Math.max(width, height) > WEBP_MAX_SIDE) {
      throw new ExportFailure({ kind: "too_tall_for_webp", width, height });
    }
  }
  const job = { source, pieces, format: options.format, preset: options.quality ?? "high" };
  const pixels = info.width * info.height;
  let files: Uint8Array<ArrayBuffer>[] | undefined;
  if (options.exporter.encoder === "sharp" && pixels <= MAX_PIXELS) {
    const loaded = await loadSharp();
    if ("sharp" in loaded) files = await cutWithSharp(loaded.sharp, job);
  }
  if (!files) {
    // Only a PNG whose rows can be streamed may be larger than one decode is allowed to be.
    if (pixels > MAX_PIXELS && (kind !== "png" || pngHeader(source).channels === 0)) {
      throw new ExportFailure({ kind: "too_large", width: info.width, height: info.height });
    }
    files = await canStartWorkers()
      ? await inWorker(job)
      // Loaded on demand, as fit.ts does: with a Worker this thread never loads the row cutter.
      : await (await import("./cut_rows.ts")).cutRows(job);
  }
  const contentType = CONTENT_TYPES[options.format];
  const written = files;
  return pieces.map((piece, i) => ({ ...piece, bytes: written[i], contentType }));
}

/** A piece must lie within the image and be written at its own size or smaller. */
function checkPiece(piece: Piece, image: { width: number; height: number }): void {
  const { rect, width, height } = piece;
  const whole = [rect.x, rect.y, rect.width, rect.height, width, height].every(Number.isInteger);
  const inside = rect.x >= 0 && rect.y >= 0 && rect.width >= 1 && rect.height >= 1 &&
    rect.x + rect.width <= image.width && rect.y + rect.height <= image.height;
  const down = width >= 1 && height >= 1 && width <= rect.width && height <= rect.height;
  if (!whole || !inside || !down) {
    throw new RangeError(
      `piece ${JSON.stringify(piece)} does not fit a ${image.width}x${image.height} image`,
    );
  }
}

const WORKER_URL = new URL("./cut_worker.ts", import.meta.url);

async function inWorker(
  job: { source: Uint8Array } & Omit<CutRequest, "source">,
): Promise<Uint8Array<ArrayBuffer>[]> {
  const copy = new Uint8Array(job.source);
  const request: CutRequest = { ...job, source: copy.buffer };
  const answer = await runInWorker<CutReply>(WORKER_URL, request, [copy.buffer]);
  return answer.pieces.map((buffer) => new Uint8Array(buffer));
}
