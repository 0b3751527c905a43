/** Icon files for the favicon tests, built byte by byte: solid PNGs, noise, and .ico containers. */
import { concatBytes } from "../lib/bytes.ts";
import { encodePng } from "../lib/codecs/png_encoder.ts";
import { type Route, schemePage } from "./capture_fixtures.ts";

/** A `side`x`side` PNG of one colour. */
export function solidPng(
  side: number,
  rgb: readonly [number, number, number],
): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(side * side * 3);
  for (let i = 0; i < data.length; i += 3) data.set(rgb, i);
  return encodePng({ width: side, height: side, channels: 3, data }, 6);
}

/** A `side`x`side` PNG of noise: it does not compress, so it is about 3 bytes a pixel. */
export function noisePng(side: number): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(side * side * 3);
  // getRandomValues fills at most 64 KiB at a time.
  for (let i = 0; i < data.length; i += 65_536) {
    crypto.getRandomValues(data.subarray(i, i + 65_536));
  }
  return encodePng({ width: side, height: side, channels: 3, data }, 6);
}

/** An .ico holding `images` (PNG payloads, as modern .ico files do) in the order given. */
export function icoOf(images: { side: number; bits?: number; bytes: Uint8Array }[]): Uint8Array {
  const header = new Uint8Array(6 + 16 * images.length);
  const view = new DataView(header.buffer);
  view.setUint16(2, 1, true);
  view.setUint16(4, images.length, true);
  let offset = header.length;
  images.forEach(({ side, bits = 32, bytes }, i) => {
    const entry = 6 + 16 * i;
    header[entry] = side >= 256 ? 0 : side;
    header[entry + 1] = side >= 256 ? 0 : side;
    view.setUint16(entry + 4, 1, true);
    view.setUint16(entry + 6, bits, true);
    view.setUint32(entry + 8, bytes.length, true);
    view.setUint32(entry + 12, offset, true);
    offset += bytes.length;
  });
  return concatBytes([header, ...images.map((image) => image.bytes)]);
}

/** The images of an .ico, as [side, payload] pairs. */
export function icoImages(ico: Uint8Array): { side: number; bytes: Uint8Array }[] {
  const view = new DataView(ico.buffer, ico.byteOffset, ico.byteLength);
  return Array.from({ length: view.getUint16(4, true) }, (_, i) => {
    const entry = 6 + 16 * i;
    const size = view.getUint32(entry + 8, true);
    const offset = view.getUint32(entry + 12, true);
    return { side: ico[entry] || 256, bytes: ico.subarray(offset, offset + size) };
  });
}

/**
 * Routes of a site for the favicon's boundary tests: `/icon-page?href=<url>` declares that icon,
 * `/icon.png` is a red 16 px icon of the site itself.
 */
export function iconRoutes(): Record<string, Route> {
  return {
    "/icon-page": (request) =>
      new Response(
        schemePage(`<link rel="icon" href="${new URL(request.url).searchParams.get("href")}">`),
        { headers: { "content-type": "text/html" } },
      ),
    "/icon.png": () =>
      new Response(solidPng(16, [255, 0, 0]), { headers: { "content-type": "image/png" } }),
  };
}
