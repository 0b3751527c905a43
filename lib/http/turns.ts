/**
 * Long work on a large body (tens of MiB) cut into slices, with a turn of the event loop between
 * them, so no request holds the loop for more than a slice's worth: other requests, /healthz and
 * timers run in between. On two loaded cores one pass over 33 MiB (a copy, a decode) took 100 to
 * 700 ms in one piece.
 */

/** Bytes one slice of such work covers: a few ms to a few tens of ms of native work. */
export const SLICE_BYTES = 2 * 1024 * 1024;

/** Resolves on a later turn of the event loop, after the timers and I/O that are due. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** `pieces` joined into one buffer, a slice of copying per turn however they are cut. */
export async function joinInSlices(
  pieces: readonly Uint8Array[],
): Promise<Uint8Array<ArrayBuffer>> {
  const joined = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let offset = 0;
  let sinceTurn = 0;
  for (const piece of pieces) {
    for (let at = 0; at < piece.length;) {
      if (sinceTurn >= SLICE_BYTES) {
        sinceTurn = 0;
        await nextTurn();
      }
      const part = piece.subarray(at, at + SLICE_BYTES - sinceTurn);
      joined.set(part, offset);
      offset += part.length;
      at += part.length;
      sinceTurn += part.length;
    }
  }
  return joined;
}

/** `source` copied into `target` at `offset`, a slice per turn. */
export async function copyInSlices(target: Uint8Array, offset: number, source: Uint8Array) {
  for (let at = 0; at < source.length; at += SLICE_BYTES) {
    if (at > 0) await nextTurn();
    target.set(source.subarray(at, at + SLICE_BYTES), offset + at);
  }
}
