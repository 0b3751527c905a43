/**
 * A minimal baseline JPEG writer for four-component test files: Adobe CMYK (transform 0) and
 * YCCK (transform 2), as Photoshop writes them, from ink amounts (0 = no ink). No library here
 * writes YCCK, so the fixture is written by hand: 4:4:4, quantiser 1 (near lossless), the
 * example Huffman tables of ITU T.81 Annex K.
 */

export interface Ink {
  /** C, M, Y, K ink amounts per pixel, 0..255, rows top to bottom. */
  data: Uint8Array;
  width: number;
  height: number;
}

const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const AC_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
// The AC table's symbols (HUFFVAL of Annex K.3), as hex.
const AC_VALUES = hex(
  "01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a" +
    "25262728292a3435363738393a434445464748494a535455565758595a636465666768696a73747576777879" +
    "7a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9" +
    "cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa",
);
// Coefficient index (row * 8 + column) of each position of the zigzag scan.
const ZIGZAG = Array.from({ length: 64 }, (_, i) => i)
  .sort((a, b) => {
    const [da, db] = [(a >> 3) + (a & 7), (b >> 3) + (b & 7)];
    if (da !== db) return da - db;
    return da % 2 ? (a >> 3) - (b >> 3) : (b >> 3) - (a >> 3); // odd diagonals run downwards
  });

/** A JPEG holding `ink` as Adobe CMYK ("cmyk") or YCCK ("ycck"); width, height multiples of 8. */
export function cmykJpegOf(ink: Ink, transform: "cmyk" | "ycck"): Uint8Array {
  const { width, height } = ink;
  const planes = storedPlanes(ink, transform);
  const segment = (marker: number, body: number[]) => [
    0xff,
    marker,
    (body.length + 2) >> 8,
    (body.length + 2) & 255,
    ...body,
  ];
  const adobe = [..."Adobe"].map((c) => c.charCodeAt(0));
  const table = (bits: number[], values: number[], id: number) => [id, ...bits, ...values];
  const header = [
    0xff,
    0xd8,
    ...segment(0xee, [...adobe, 0, 100, 0, 0, 0, 0, transform === "cmyk" ? 0 : 2]),
    ...segment(0xdb, [0, ...new Array(64).fill(1)]),
    ...segment(0xc0, [
      8,
      height >> 8,
      height & 255,
      width >> 8,
      width & 255,
      4,
      ...[1, 2, 3, 4]
        .flatMap((id) => [id, 0x11, 0]),
    ]),
    ...segment(0xc4, [...table(DC_BITS, DC_VALUES, 0x00), ...table(AC_BITS, AC_VALUES, 0x10)]),
    ...segment(0xda, [4, 1, 0, 2, 0, 3, 0, 4, 0, 0, 63, 0]),
  ];
  const dc = huffmanCodes(DC_BITS, DC_VALUES);
  const ac = huffmanCodes(AC_BITS, AC_VALUES);
  const writer = new BitWriter();
  const previous = [0, 0, 0, 0];
  for (let by = 0; by < height; by += 8) {
    for (let bx = 0; bx < width; bx += 8) {
      for (let c = 0; c < 4; c++) {
        const coefficients = forwardDct(planes[c], width, bx, by);
        const diff = coefficients[0] - previous[c];
        previous[c] = coefficients[0];
        writer.value(dc, 0, diff);
        let run = 0;
        for (let k = 1; k < 64; k++) {
          const v = coefficients[ZIGZAG[k]];
          if (v === 0) {
            run++;
            continue;
          }
          while (run > 15) writer.code(ac, 0xf0), (run -= 16);
          writer.value(ac, run << 4, v);
          run = 0;
        }
        if (run > 0) writer.code(ac, 0x00); // end of block
      }
    }
  }
  return Uint8Array.from([...header, ...writer.finish(), 0xff, 0xd9]);
}

/** What the file stores: inverted ink (Adobe's convention), or YCC of the ink plus inverted K. */
function storedPlanes({ data, width, height }: Ink, transform: "cmyk" | "ycck"): Float64Array[] {
  const planes = Array.from({ length: 4 }, () => new Float64Array(width * height));
  for (let p = 0; p < width * height; p++) {
    const [c, m, y, k] = data.subarray(p * 4, p * 4 + 4);
    const stored = transform === "cmyk" ? [255 - c, 255 - m, 255 - y] : [
      0.299 * c + 0.587 * m + 0.114 * y,
      -0.168736 * c - 0.331264 * m + 0.5 * y + 128,
      0.5 * c - 0.418688 * m - 0.081312 * y + 128,
    ];
    [...stored, 255 - k].forEach((v, i) => (planes[i][p] = v));
  }
  return planes;
}

function forwardDct(plane: Float64Array, width: number, bx: number, by: number): number[] {
  const out = new Array(64).fill(0);
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let y = 0; y < 8; y++) {
        for (let x = 0; x < 8; x++) {
          sum += (plane[(by + y) * width + bx + x] - 128) *
            Math.cos(((2 * x + 1) * u * Math.PI) / 16) * Math.cos(((2 * y + 1) * v * Math.PI) / 16);
        }
      }
      const cu = u === 0 ? Math.SQRT1_2 : 1;
      const cv = v === 0 ? Math.SQRT1_2 : 1;
      out[v * 8 + u] = Math.round((cu * cv * sum) / 4);
    }
  }
  return out;
}

/** Code (bits, length) per symbol from a table's BITS and HUFFVAL lists (T.81 Annex C). */
function huffmanCodes(bits: number[], values: number[]): Map<number, [number, number]> {
  const codes = new Map<number, [number, number]>();
  let code = 0, k = 0;
  for (let length = 1; length <= 16; length++) {
    for (let i = 0; i < bits[length - 1]; i++) codes.set(values[k++], [code++, length]);
    code <<= 1;
  }
  return codes;
}

function hex(text: string): number[] {
  return Array.from(
    { length: text.length / 2 },
    (_, i) => parseInt(text.slice(i * 2, i * 2 + 2), 16),
  );
}

class BitWriter {
  #bytes: number[] = [];
  #buffer = 0;
  #count = 0;

  bits(value: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) {
      this.#buffer = (this.#buffer << 1) | ((value >> i) & 1);
      if (++this.#count === 8) {
        this.#bytes.push(this.#buffer);
        if (this.#buffer === 0xff) this.#bytes.push(0); // byte stuffing
        this.#buffer = 0;
        this.#count = 0;
      }
    }
  }

  code(codes: Map<number, [number, number]>, symbol: number): void {
    const [code, length] = codes.get(symbol)!;
    this.bits(code, length);
  }

  /** A (run, size) symbol followed by the value's `size` extra bits, as T.81 F.1.2 codes them. */
  value(codes: Map<number, [number, number]>, runBits: number, value: number): void {
    const size = value === 0 ? 0 : Math.floor(Math.log2(Math.abs(value))) + 1;
    this.code(codes, runBits | size);
    if (size) this.bits(value > 0 ? value : value + (1 << size) - 1, size);
  }

  finish(): number[] {
    if (this.#count) this.bits(0x7f, 8 - this.#count); // pad with ones
    return this.#bytes;
  }
}
