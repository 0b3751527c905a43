import assert from "node:assert/strict";
import { constants, deflateRawSync, inflateRawSync } from "node:zlib";
import fc from "fast-check";
import {
  DeflateFormatError,
  endOnSyncFlush,
  findStreamEnd,
} from "../../lib/codecs/deflate_blocks.ts";
import { libdeflateRaw } from "../../lib/codecs/libdeflate.ts";
import { photoPixels } from "../../testing/codecs.ts";

/** A part's content: noise (stored blocks), runs (long matches) or a mix (dynamic codes). */
const content = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 70_000 }))
    .map(([value, length]) => new Uint8Array(length).fill(value)),
  fc.tuple(fc.integer({ min: 1, max: 60_000 }), fc.integer({ min: 1, max: 97 }))
    .map(([length, period]) => Uint8Array.from({ length }, (_, i) => (i % period) * 7 + (i >> 12))),
);
const compressor = fc.oneof(
  fc.integer({ min: 1, max: 12 }).map((level) => ({ name: `libdeflate ${level}`, level })),
  fc.integer({ min: 0, max: 9 }).map((level) => ({ name: `zlib ${level}`, level, zlib: true })),
);

function compress(bytes: Uint8Array, how: { level: number; zlib?: boolean }): Uint8Array {
  return how.zlib
    ? deflateRawSync(bytes, { level: how.level, finishFlush: constants.Z_FINISH })
    : libdeflateRaw(bytes, how.level);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) (out.set(part, at), at += part.length);
  return out;
}

Deno.test("finished streams joined after a sync flush inflate to their inputs in order", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(content, compressor), { minLength: 1, maxLength: 4 }),
      (parts) => {
        const streams = parts.map(([bytes, how], i) => {
          const stream = compress(bytes, how);
          return i < parts.length - 1 ? endOnSyncFlush(stream) : stream;
        });
        const joined = inflateRawSync(concat(streams));
        assert.deepEqual(new Uint8Array(joined), concat(parts.map(([bytes]) => bytes)));
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("the walk finds the final block's header and the end of its data", () => {
  const photo = photoPixels(400, 300).data;
  for (const stream of [libdeflateRaw(photo, 10), deflateRawSync(photo, { level: 9 })]) {
    const { lastBlockBit, endBit } = findStreamEnd(stream);
    assert.equal((stream[lastBlockBit >>> 3] >>> (lastBlockBit & 7)) & 1, 1, "BFINAL set there");
    assert.equal(Math.ceil(endBit / 8), stream.length, "the data ends in the last byte");
    // The flushed stream is not final: zlib reads it whole and then wants more.
    const flushed = endOnSyncFlush(stream);
    assert.deepEqual(flushed.subarray(-4), Uint8Array.of(0, 0, 0xff, 0xff));
    assert.throws(() => inflateRawSync(flushed), /unexpected end of file/);
    const open = inflateRawSync(flushed, { finishFlush: constants.Z_SYNC_FLUSH });
    assert.deepEqual(new Uint8Array(open), photo);
  }
});

Deno.test("a damaged or truncated stream is refused, never walked past its end", () => {
  const stream = libdeflateRaw(photoPixels(200, 100).data, 6);
  const damaged = [
    stream.subarray(0, stream.length >> 1), // cut in the middle of a block
    Uint8Array.of(0x07), // block type 3 is reserved
    Uint8Array.of(0x01, 0x05, 0x00, 0x00, 0x00), // a stored block whose NLEN does not match
    new Uint8Array(0),
  ];
  for (const bytes of damaged) assert.throws(() => findStreamEnd(bytes), DeflateFormatError);
});

Deno.test("libdeflate round-trips large inputs, grows its memory, and checks its level", () => {
  const big = new Uint8Array(24_000_000).map((_, i) => (i * 31) ^ (i >> 11));
  assert.deepEqual(new Uint8Array(inflateRawSync(libdeflateRaw(big, 1))), big);
  for (const level of [0, 13, 2.5]) assert.throws(() => libdeflateRaw(big, level), RangeError);
  assert.deepEqual(new Uint8Array(inflateRawSync(libdeflateRaw(new Uint8Array(0), 10))).length, 0);
});
