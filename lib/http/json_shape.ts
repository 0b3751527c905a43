/**
 * The shape of a JSON body read before it is parsed: how many values it holds, how deep they
 * nest, and how long a top-level array (an MCP batch) is. Parsing and validating cost grows with
 * the values, not the bytes (a 3 MiB body of `"a",` is 750,000 strings for the schema to check,
 * one of nested brackets a million levels), so the values are what a request is bounded by.
 * Strings are skipped with the native `indexOf`, so a body of one long string (html, base64)
 * costs next to nothing; the scan stops as soon as a bound is passed.
 */

/** How much a body may hold. */
export interface JsonBounds {
  /** Most values (array elements and object members, counted by their brackets and commas). */
  maxValues: number;
  /** Deepest nesting of arrays and objects. */
  maxDepth: number;
  /** Strings of at least this many bytes are listed in `longStrings` (none when left out). */
  longString?: number;
}

/** What the scan found; `over` names the first bound passed (the scan stopped there). */
export interface JsonShape {
  values: number;
  depth: number;
  /** Elements of the top-level array; undefined when the body is not an array. */
  batch?: number;
  over?: "values" | "depth";
  /** Where the long strings' contents (between their quotes) start and end, in order. */
  longStrings?: [number, number][];
}

/** The most values and nesting one JSON body of the API may hold. */
export const JSON_BOUNDS: JsonBounds = { maxValues: 10_000, maxDepth: 32 };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The shape of the JSON text in `bytes`, scanned once; malformed JSON is left to the parser. */
export function jsonShape(bytes: Uint8Array, bounds: JsonBounds = JSON_BOUNDS): JsonShape {
  let values = 0;
  let depth = 0;
  let deepest = 0;
  let topCommas = 0;
  let topItem = false;
  let isBatch: boolean | undefined;
  const longStrings: [number, number][] = [];
  const shape = (over?: JsonShape["over"]): JsonShape => ({
    values,
    depth: deepest,
    ...(isBatch ? { batch: topItem ? topCommas + 1 : 0 } : {}),
    ...(over ? { over } : {}),
    ...(longStrings.length ? { longStrings } : {}),
  });
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (WHITESPACE.has(byte)) continue;
    isBatch ??= byte === OPEN_ARRAY;
    if (depth === 1 && byte !== CLOSE_ARRAY) topItem = true;
    if (byte === QUOTE) {
      const close = closingQuote(bytes, i);
      if (bounds.longString !== undefined && close - i - 1 >= bounds.longString) {
        longStrings.push([i + 1, close]);
      }
      i = close;
      continue;
    }
    if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth++;
      values++;
      if (depth > deepest) deepest = depth;
      if (deepest > bounds.maxDepth) return shape("depth");
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    } else if (byte === COMMA || byte === COLON) {
      values++;
      if (byte === COMMA && depth === 1) topCommas++;
    }
    if (values > bounds.maxValues) return shape("values");
  }
  return shape();
}

/** The index of the quote that closes the string opened at `open` (the end when none does). */
function closingQuote(bytes: Uint8Array, open: number): number {
  let at = open;
  while (true) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at < 0) return bytes.length;
    // A quote after an odd run of backslashes is escaped.
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
