/** EXIF orientation from a TIFF-structured block (JPEG APP1, WebP EXIF, PNG eXIf). */

const ORIENTATION_TAG = 0x0112;
const EXIF_PREFIX = [0x45, 0x78, 0x69, 0x66, 0, 0]; // "Exif\0\0"

/**
 * The orientation (1..8) stored in an EXIF block, or 1 when absent or malformed.
 * Accepts the block with or without the "Exif\0\0" prefix, as writers differ.
 */
export function exifOrientation(block: Uint8Array): number {
  let tiff = block;
  if (EXIF_PREFIX.every((b, i) => block[i] === b)) tiff = block.subarray(EXIF_PREFIX.length);
  if (tiff.length < 8) return 1;
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const order = view.getUint16(0);
  if (order !== 0x4949 && order !== 0x4d4d) return 1; // "II" or "MM"
  const little = order === 0x4949;
  if (view.getUint16(2, little) !== 42) return 1;
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > tiff.length) return 1;
  const count = view.getUint16(ifd, little);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return 1;
    if (view.getUint16(entry, little) !== ORIENTATION_TAG) continue;
    const value = view.getUint16(entry + 8, little);
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}

/** Orientations 5..8 swap width and height when applied. */
export function swapsAxes(orientation: number): boolean {
  return orientation >= 5;
}
