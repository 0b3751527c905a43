/** What cutImage (tiles.ts) is asked for, shared by its codec paths and its Worker. */
import type { ExportFormat, QualityPreset } from "./presets.ts";

/** A region of an image, in pixels from its top-left corner. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A region to cut and the size to write it at: another size than the rect's is a scale-down. */
export interface Piece {
  rect: Rect;
  width: number;
  height: number;
}

/** One cut: the source image (PNG, JPEG or WebP), its pieces, and how to write them. */
export interface CutJob {
  source: Uint8Array;
  pieces: Piece[];
  format: ExportFormat;
  /** JPEG and WebP only: PNG pieces are always lossless. */
  preset: QualityPreset;
}

/** Whether a piece is written at another size than its rect's. */
export function isScaled(piece: Piece): boolean {
  return piece.width !== piece.rect.width || piece.height !== piece.rect.height;
}
