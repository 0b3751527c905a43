// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// The framed picture as a PNG file written from the renderer's own pixels. canvas.toBlob would
// do it in one line, but a canvas keeps its pixels premultiplied by alpha: the colour of a faint
// pixel on a transparent background (a shadow's edge) comes back rounded. Written here, the
// editor's export holds exactly the pixels the API answers for the same design.

import { pngChunk } from "../codecs/png_chunk.js";

/** @typedef {import("../frame/raster.js").Rgba} Rgba */

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

/**
 * RGBA pixels as an 8-bit RGBA PNG; each row filtered by "up" (the row above subtracted), which
 * deflates a screenshot's flat areas well, compressed by the browser's own zlib.
 * @param {Rgba} image
 * @returns {Promise<Blob>}
 */
export async function pngFileOf(image) {
  const { width, height, data } = image;
  const stride = width * 4;
  const rows = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const out = y * (stride + 1);
    const row = y * stride;
    rows[out] = y === 0 ? 0 : 2;
    if (y === 0) {
      rows.set(data.subarray(0, stride), out + 1);
      continue;
    }
    for (let x = 0; x < stride; x++) rows[out + 1 + x] = data[row + x] - data[row - stride + x];
  }
  const deflated = new Blob([rows]).stream().pipeThrough(new CompressionStream("deflate"));
  const idat = new Uint8Array(await new Response(deflated).arrayBuffer());
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, adaptive filters, no interlace
  return new Blob(
    [
      new Uint8Array(SIGNATURE),
      pngChunk("IHDR", header),
      pngChunk("IDAT", idat),
      pngChunk("IEND", new Uint8Array()),
    ],
    { type: "image/png" },
  );
}
