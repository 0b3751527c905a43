/**
 * Area-averaging scale-down fed one source row at a time, top to bottom: each output pixel is the
 * coverage-weighted mean of the source pixels under it, colours weighted by alpha so transparent
 * pixels do not darken edges. Rows arrive as they are decoded (a PNG streamed by png_rows.ts), so
 * a whole page can be scaled without ever holding it: only the output and two rows of sums.
 */
/** The scale-down of a sourceWidth x sourceHeight RGBA image to width x height, row by row. */
export class AreaScaler {
  readonly #sourceWidth: number;
  readonly #sourceHeight: number;
  readonly #width: number;
  readonly #height: number;
  readonly #yScale: number;
  readonly #columns: Array<{ first: number; weights: Float64Array }>;
  readonly #out: Uint8Array;
  readonly #row: Float64Array;
  /** The sums of output rows #y, #y + 1, ...: a source row touches at most two of them. */
  #sums: Float64Array[] = [];
  #spare: Float64Array[] = [];
  /** The next source row expected, and the first output row not yet written. */
  #sourceY = 0;
  #y = 0;

  constructor(source: { width: number; height: number }, width: number, height: number) {
    const { width: sw, height: sh } = source;
    if (width > sw || height > sh || width < 1 || height < 1) {
      throw new RangeError(`cannot scale ${sw}x${sh} down to ${width}x${height}`);
    }
    this.#sourceWidth = sw;
    this.#sourceHeight = sh;
    this.#width = width;
    this.#height = height;
    this.#yScale = sh / height;
    this.#columns = coverage(sw, width);
    this.#out = new Uint8Array(width * height * 4);
    this.#row = new Float64Array(width * 4);
  }

  /** Takes the next source row (RGBA, sourceWidth pixels). */
  push(rgba: Uint8Array): void {
    const sy = this.#sourceY++;
    if (sy >= this.#sourceHeight) throw new RangeError("more rows than the source has");
    let averaged = false;
    for (let y = this.#y; y < this.#height; y++) {
      const top = y * this.#yScale;
      const bottom = top + this.#yScale;
      if (Math.floor(top) > sy) break;
      const wy = Math.min(bottom, sy + 1) - Math.max(top, sy);
      if (sy >= Math.min(this.#sourceHeight, Math.ceil(bottom)) || wy <= 0) continue;
      if (!averaged) this.#average(rgba);
      averaged = true;
      const sum = this.#sumOf(y);
      for (let j = 0; j < sum.length; j++) sum[j] += this.#row[j] * wy;
    }
    // Output rows whose last source row this was are complete.
    while (this.#y < this.#height && this.#lastSourceRow(this.#y) <= sy) this.#finish();
  }

  /** The scaled image (RGBA), once every source row was pushed. */
  result(): { data: Uint8Array; width: number; height: number } {
    if (this.#y < this.#height) throw new RangeError("the source rows did not all arrive");
    return { data: this.#out, width: this.#width, height: this.#height };
  }

  #lastSourceRow(y: number): number {
    return Math.min(this.#sourceHeight, Math.ceil(y * this.#yScale + this.#yScale)) - 1;
  }

  /** One source row averaged across the output columns, alpha-weighted, into #row. */
  #average(rgba: Uint8Array): void {
    const row = this.#row;
    row.fill(0);
    for (let x = 0; x < this.#width; x++) {
      const { first, weights } = this.#columns[x];
      for (let k = 0; k < weights.length; k++) {
        const i = (first + k) * 4;
        const w = weights[k] * rgba[i + 3];
        row[x * 4] += rgba[i] * w;
        row[x * 4 + 1] += rgba[i + 1] * w;
        row[x * 4 + 2] += rgba[i + 2] * w;
        row[x * 4 + 3] += w;
      }
    }
  }

  #sumOf(y: number): Float64Array {
    const index = y - this.#y;
    while (this.#sums.length <= index) {
      this.#sums.push(this.#spare.pop()?.fill(0) ?? new Float64Array(this.#width * 4));
    }
    return this.#sums[index];
  }

  /** Writes output row #y from its sums. */
  #finish(): void {
    const y = this.#y++;
    const sum = this.#sums.shift() ?? new Float64Array(this.#width * 4);
    const width = this.#width;
    // Source pixels under one output pixel; the alpha sum over it is at most 255 times that.
    const area = (this.#sourceWidth / width) * this.#yScale;
    const out = this.#out;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      const alphaWeight = sum[x * 4 + 3];
      out[o + 3] = Math.round(alphaWeight / area);
      if (alphaWeight === 0) continue;
      out[o] = Math.round(sum[x * 4] / alphaWeight);
      out[o + 1] = Math.round(sum[x * 4 + 1] / alphaWeight);
      out[o + 2] = Math.round(sum[x * 4 + 2] / alphaWeight);
    }
    this.#spare.push(sum);
  }
}

/** For each output column, the first source column under it and each one's covered fraction. */
function coverage(sourceSize: number, size: number) {
  const scale = sourceSize / size;
  return Array.from({ length: size }, (_, x) => {
    const left = x * scale;
    const right = left + scale;
    const first = Math.floor(left);
    const last = Math.min(sourceSize, Math.ceil(right));
    const weights = new Float64Array(last - first);
    for (let s = first; s < last; s++) {
      weights[s - first] = Math.min(right, s + 1) - Math.max(left, s);
    }
    return { first, weights };
  });
}
