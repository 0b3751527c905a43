/**
 * Turns a finished raw DEFLATE stream (RFC 1951) into one that ends on a sync flush, so that
 * another stream can follow it: the bands of a PNG are compressed apart and joined
 * (png_bands.ts). zlib can end a part on a sync flush itself; a whole-buffer compressor such as
 * libdeflate cannot, so its output is walked block by block to find the last block's header, the
 * BFINAL bit there is cleared, and an empty stored block byte-aligns the end, as zlib's
 * Z_SYNC_FLUSH does. The walk decodes every Huffman code (it has to: only the end-of-block code
 * ends a block) but writes nothing, so it costs a fraction of the compression.
 */

const LENGTH_EXTRA_BITS = Uint8Array.of(
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  1,
  1,
  1,
  1,
  2,
  2,
  2,
  2,
  3,
  3,
  3,
  3,
  4,
  4,
  4,
  4,
  5,
  5,
  5,
  5,
  0,
);
const DISTANCE_EXTRA_BITS = Uint8Array.of(
  0,
  0,
  0,
  0,
  1,
  1,
  2,
  2,
  3,
  3,
  4,
  4,
  5,
  5,
  6,
  6,
  7,
  7,
  8,
  8,
  9,
  9,
  10,
  10,
  11,
  11,
  12,
  12,
  13,
  13,
);
// The order code-length code lengths are sent in (RFC 1951 3.2.7).
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const END_OF_BLOCK = 256;

export class DeflateFormatError extends Error {
  override name = "DeflateFormatError";
}

/**
 * A canonical Huffman code as a lookup table indexed by the next `bits` input bits (least
 * significant first): each entry is `symbol << 4 | code length`, 0 where no code starts.
 */
interface DecodeTable {
  entries: Uint32Array;
  bits: number;
}

function decodeTable(lengths: ArrayLike<number>): DecodeTable {
  let bits = 0;
  const count = new Uint16Array(16);
  for (let i = 0; i < lengths.length; i++) {
    count[lengths[i]]++;
    if (lengths[i] > bits) bits = lengths[i];
  }
  const entries = new Uint32Array(1 << bits);
  // The first code of each length (RFC 1951 3.2.2); unused symbols (length 0) take none.
  const next = new Uint16Array(16);
  for (let len = 1, code = 0; len <= 15; len++) {
    code = (code + (len > 1 ? count[len - 1] : 0)) << 1;
    next[len] = code;
  }
  for (let symbol = 0; symbol < lengths.length; symbol++) {
    const len = lengths[symbol];
    if (!len) continue;
    const code = next[len]++;
    if (code >= 1 << len) throw new DeflateFormatError("over-subscribed Huffman code");
    let reversed = 0;
    for (let i = 0; i < len; i++) reversed |= ((code >> i) & 1) << (len - 1 - i);
    for (let i = reversed; i < entries.length; i += 1 << len) entries[i] = (symbol << 4) | len;
  }
  return { entries, bits };
}

const FIXED_LITERALS = decodeTable(
  Array.from({ length: 288 }, (_, s) => (s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8)),
);
const FIXED_DISTANCES = decodeTable(new Array(30).fill(5));

/** Where a stream's last block starts and where its data ends, in bits from the start. */
export interface StreamEnd {
  lastBlockBit: number;
  endBit: number;
}

/** Walks the blocks of a raw DEFLATE stream to the end of its final block. */
export function findStreamEnd(stream: Uint8Array): StreamEnd {
  const totalBits = stream.length * 8;
  let pos = 0;
  const read = (n: number): number => {
    if (pos + n > totalBits) throw new DeflateFormatError("stream ends inside a block");
    let value = 0;
    for (let got = 0; got < n;) {
      const take = Math.min(n - got, 8 - (pos & 7));
      value |= ((stream[pos >>> 3] >>> (pos & 7)) & ((1 << take) - 1)) << got;
      got += take;
      pos += take;
    }
    return value;
  };
  const decode = (table: DecodeTable): number => {
    const at = pos >>> 3;
    // Up to 15 bits from pos: gather 3 bytes past the bit offset (missing bytes read as 0).
    const window = (stream[at] | (stream[at + 1] << 8) | (stream[at + 2] << 16) |
      (stream[at + 3] << 24)) >>> (pos & 7);
    const entry = table.entries[window & ((1 << table.bits) - 1)];
    if (!entry) throw new DeflateFormatError("no Huffman code matches the input");
    pos += entry & 15;
    if (pos > totalBits) throw new DeflateFormatError("stream ends inside a code");
    return entry >>> 4;
  };
  const skipCodes = (literals: DecodeTable, distances: DecodeTable) => {
    for (;;) {
      const symbol = decode(literals);
      if (symbol < END_OF_BLOCK) continue;
      if (symbol === END_OF_BLOCK) return;
      if (symbol > 285) throw new DeflateFormatError(`length code ${symbol}`);
      pos += LENGTH_EXTRA_BITS[symbol - 257];
      const distance = decode(distances);
      if (distance > 29) throw new DeflateFormatError(`distance code ${distance}`);
      pos += DISTANCE_EXTRA_BITS[distance];
    }
  };
  for (;;) {
    const lastBlockBit = pos;
    const final = read(1);
    const type = read(2);
    if (type === 0) {
      pos = Math.ceil(pos / 8) * 8;
      const length = read(16);
      if ((read(16) ^ 0xffff) !== length) throw new DeflateFormatError("stored length check");
      pos += length * 8;
    } else if (type === 1) {
      skipCodes(FIXED_LITERALS, FIXED_DISTANCES);
    } else if (type === 2) {
      skipCodes(...readDynamicTables(read, decode));
    } else {
      throw new DeflateFormatError("reserved block type");
    }
    if (pos > totalBits) throw new DeflateFormatError("stream ends inside a block");
    if (final) return { lastBlockBit, endBit: pos };
  }
}

/** A dynamic block's literal/length and distance codes (RFC 1951 3.2.7). */
function readDynamicTables(
  read: (n: number) => number,
  decode: (table: DecodeTable) => number,
): [DecodeTable, DecodeTable] {
  const literalCount = read(5) + 257;
  const distanceCount = read(5) + 1;
  const lengthCodeCount = read(4) + 4;
  const codeLengths = new Uint8Array(19);
  for (let i = 0; i < lengthCodeCount; i++) codeLengths[CODE_LENGTH_ORDER[i]] = read(3);
  const lengthCode = decodeTable(codeLengths);
  const lengths = new Uint8Array(literalCount + distanceCount);
  for (let i = 0; i < lengths.length;) {
    const symbol = decode(lengthCode);
    if (symbol < 16) {
      lengths[i++] = symbol;
      continue;
    }
    let repeat: number, value = 0;
    if (symbol === 16) {
      if (i === 0) throw new DeflateFormatError("repeat with no previous length");
      value = lengths[i - 1];
      repeat = 3 + read(2);
    } else {
      repeat = symbol === 17 ? 3 + read(3) : 11 + read(7);
    }
    if (i + repeat > lengths.length) throw new DeflateFormatError("code lengths overflow");
    lengths.fill(value, i, i + repeat);
    i += repeat;
  }
  if (!lengths[END_OF_BLOCK]) throw new DeflateFormatError("no end-of-block code");
  return [
    decodeTable(lengths.subarray(0, literalCount)),
    decodeTable(lengths.subarray(literalCount)),
  ];
}

/**
 * The same data as `stream`, no longer final: its last block's BFINAL bit cleared and an empty
 * stored block appended (3 header bits, zero padding to a byte, then LEN 0 and NLEN 0xffff), so
 * a following raw DEFLATE stream can be concatenated byte for byte.
 */
export function endOnSyncFlush(stream: Uint8Array): Uint8Array<ArrayBuffer> {
  const { lastBlockBit, endBit } = findStreamEnd(stream);
  const headerBytes = Math.ceil((endBit + 3) / 8);
  const out = new Uint8Array(headerBytes + 4);
  out.set(stream.subarray(0, Math.ceil(endBit / 8)));
  // The bits past the data in its last byte were padding; the stored block's header goes there.
  if (endBit & 7) out[endBit >>> 3] &= (1 << (endBit & 7)) - 1;
  out[lastBlockBit >>> 3] &= ~(1 << (lastBlockBit & 7));
  out.set([0x00, 0x00, 0xff, 0xff], headerBytes);
  return out;
}
