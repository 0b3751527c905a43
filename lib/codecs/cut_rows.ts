/**
 * The wasm path of cutImage (tiles.ts), run in a Worker: the source's rows, top to bottom, are
 * copied into the pieces that cover them (or pushed to the scale-down of a scaled piece), and each
 * piece is encoded as soon as its last row arrived. An 8-bit PNG, what Chromium writes, is
 * streamed (png_rows.ts): only the pieces in progress are held, never the whole page (a
 * 1920x32767 capture is 250 MB of RGBA). Other images are decoded whole by the wasm codecs.
 */
import { AreaScaler } from "./area_scaler.ts";
import { type CutJob, isScaled, type Piece } from "./cut_types.ts";
import { sniffKind } from "./image_info.ts";
import { hasTransparency, losslessInput } from "./pixels.ts";
import { encodePng } from "./png_encoder.ts";
import type { PngInput } from "./png_filters.ts";
import { pngHeader, pngRows } from "./png_rows.ts";
import { TILE_PNG } from "./presets.ts";

/** A piece being filled: its pixels row by row (as the source stores them), or its scale-down. */
type Cut =
  | { index: number; piece: Piece; image: PngInput }
  | { index: number; piece: Piece; scaler: AreaScaler };

/** Every piece of `job`, encoded, in the order of `job.pieces`. */
export async function cutRows(job: CutJob): Promise<Uint8Array<ArrayBuffer>[]> {
  const { source, pieces } = job;
  const order = pieces.map((_, index) => index).sort((a, b) => pieces[a].rect.y - pieces[b].rect.y);
  const encoded: Uint8Array<ArrayBuffer>[] = new Array(pieces.length);
  const open = new Set<Cut>();
  let next = 0;
  let y = 0;
  for await (const { row, channels } of sourceRows(source)) {
    while (next < order.length && pieces[order[next]].rect.y === y) {
      open.add(start(order[next++], channels));
    }
    // The scale-down works on RGBA; crops keep the source's channels (most captures are RGB).
    let rgba: Uint8Array | undefined;
    for (const cut of open) {
      const { x, y: top, width, height } = cut.piece.rect;
      if ("scaler" in cut) {
        rgba ??= channels === 4 ? row : rgbaOf(row);
        cut.scaler.push(rgba.subarray(x * 4, (x + width) * 4));
      } else {
        const part = row.subarray(x * channels, (x + width) * channels);
        cut.image.data.set(part, (y - top) * width * channels);
      }
      if (y < top + height - 1) continue;
      open.delete(cut);
      const image = "scaler" in cut ? cut.scaler.result() : cut.image;
      encoded[cut.index] = await encode({ channels: 4, ...image }, job);
    }
    y++;
    // Rows below the last piece need not even be inflated.
    if (next === order.length && open.size === 0) break;
  }
  if (next < order.length || open.size) throw new RangeError("a piece lies outside the image");
  return encoded;

  function start(index: number, channels: 3 | 4): Cut {
    const piece = pieces[index];
    const { rect } = piece;
    if (isScaled(piece)) {
      return { index, piece, scaler: new AreaScaler(rect, piece.width, piece.height) };
    }
    const data = new Uint8Array(rect.width * rect.height * channels);
    return { index, piece, image: { data, width: rect.width, height: rect.height, channels } };
  }
}

/** The image's rows (RGB or RGBA), top to bottom; a row's buffer may be reused for the next. */
async function* sourceRows(
  source: Uint8Array,
): AsyncGenerator<{ row: Uint8Array; channels: 3 | 4 }> {
  const kind = sniffKind(source);
  const { channels } = pngHeader(source);
  if (kind === "png" && channels !== 0) {
    for await (const { row } of pngRows(source)) yield { row, channels };
    return;
  }
  if (!kind) throw new Error("not a PNG, JPEG or WebP image");
  // Loaded on demand: a PNG from Chromium needs no wasm codec at all.
  const { decodeWasm } = await import("./wasm.ts");
  const { data, width, height } = await decodeWasm(kind, source);
  for (let y = 0; y < height; y++) {
    yield { row: data.subarray(y * width * 4, (y + 1) * width * 4), channels: 4 };
  }
}

/** RGB samples as RGBA, opaque. */
function rgbaOf(rgb: Uint8Array): Uint8Array {
  const rgba = new Uint8Array((rgb.length / 3) * 4);
  for (let i = 0, o = 0; o < rgba.length; i += 3, o += 4) {
    rgba[o] = rgb[i], rgba[o + 1] = rgb[i + 1], rgba[o + 2] = rgb[i + 2], rgba[o + 3] = 255;
  }
  return rgba;
}

/** A piece's pixels in the job's format: PNG lossless (alpha only where some pixel has it). */
async function encode(image: PngInput, job: CutJob): Promise<Uint8Array<ArrayBuffer>> {
  const { data, width, height } = image;
  const hasAlpha = image.channels === 4 && hasTransparency(data);
  if (job.format === "png") {
    const input = image.channels === 4 ? losslessInput({ data, width, height }, hasAlpha) : image;
    return encodePng(input, TILE_PNG.level, TILE_PNG.filter);
  }
  const pixels = { data: image.channels === 4 ? data : rgbaOf(data), width, height };
  const { encodeWasm } = await import("./wasm.ts");
  return await encodeWasm(pixels, { format: job.format, preset: job.preset, hasAlpha });
}
