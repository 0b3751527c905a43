/** Byte-array basics shared by the codecs, the stores, the wire code and the upstream clients. */

/** The parts joined into one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  let size = 0;
  for (const part of parts) size += part.byteLength;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/**
 * Reads `source` to its end into one array, or returns null as soon as it passes `maxBytes`
 * (leaving the loop cancels a stream), so a peer cannot make us buffer without bound.
 */
export async function readCapped(
  source: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of source) {
    size += part.byteLength;
    if (size > maxBytes) return null;
    parts.push(part);
  }
  return concatBytes(parts);
}

/** Length of the (padded) base64 text of `bytes` bytes. */
export function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}
