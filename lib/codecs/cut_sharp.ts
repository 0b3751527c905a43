/**
 * The sharp path of cutImage (tiles.ts): libvips decodes the source once to raw pixels, then each
 * piece is an extract (and a resize) of those pixels encoded on libvips' threads, so the request
 * thread only awaits. PNG pieces are written as on the wasm path (TILE_PNG).
 */
import { type CutJob, isScaled } from "./cut_types.ts";
import { withoutPngChunks } from "./png_encoder.ts";
import { TILE_PNG } from "./presets.ts";
import { lossy, type Sharp } from "./sharp.ts";

/** Every piece of `job`, encoded, in the order of `job.pieces`. */
export async function cutWithSharp(sharp: Sharp, job: CutJob): Promise<Uint8Array<ArrayBuffer>[]> {
  // The caller checked the source's size; a capture is upright and 8-bit sRGB.
  const { data, info } = await sharp(job.source, { limitInputPixels: false })
    .toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
  const raw = { width: info.width, height: info.height, channels: info.channels };
  // An opaque alpha channel would only make every PNG piece a third larger.
  const opaque = raw.channels !== 4 || (await sharp(data, { raw }).stats()).isOpaque;
  return await Promise.all(job.pieces.map(async (piece) => {
    const { x, y, width, height } = piece.rect;
    let image = sharp(data, { raw }).extract({ left: x, top: y, width, height });
    if (isScaled(piece)) image = image.resize(piece.width, piece.height, { fit: "fill" });
    if (opaque && raw.channels === 4) image = image.removeAlpha();
    image = job.format === "png"
      ? image.png({
        compressionLevel: TILE_PNG.level,
        adaptiveFiltering: TILE_PNG.filter !== "none",
        palette: false,
        force: true,
      })
      : lossy(image, { format: job.format, preset: job.preset });
    const out = await image.toBuffer();
    const bytes = new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
    // libpng writes the pixel density (pHYs), which no other output carries either.
    return job.format === "png" ? withoutPngChunks(bytes, ["pHYs"]) : bytes;
  }));
}
