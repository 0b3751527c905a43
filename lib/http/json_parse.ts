/**
 * JSON.parse with the long strings of a body decoded natively. V8 parses a string character by
 * character: the one 33 MiB base64 string of an MCP export_image call at the upload limit took 0.6
 * to 1.3 s of JSON.parse on a loaded machine, on the event loop. A long string without escapes is
 * its UTF-8 bytes as they are, so it is cut out (jsonShape lists where), decoded by TextDecoder,
 * and put back into the parsed value in place of a per-request mark. From `keepFrom` bytes on, a
 * string is not decoded at all but kept as a LongString (lib/http/long_string.ts).
 */
import { LongString } from "./long_string.ts";

const BACKSLASH = 0x5c;
const TEXT = new TextDecoder();

/**
 * The value of the JSON text `bytes`, whose long strings' contents lie at `longStrings`; those of
 * `keepFrom` bytes or more (and no escapes) are LongStrings in it (object keys never are).
 */
export function parseJsonBytes(
  bytes: Uint8Array,
  longStrings: readonly [number, number][] = [],
  keepFrom = Infinity,
): unknown {
  // A string with escapes is left to JSON.parse, which knows them all.
  const plain = longStrings.filter(([start, end]) =>
    bytes.subarray(start, end).indexOf(BACKSLASH) < 0
  );
  if (plain.length === 0) return JSON.parse(TEXT.decode(bytes));
  // A mark no client can guess, so no string it sends is taken for one of ours.
  const mark = `${crypto.randomUUID()}:`;
  const pieces: string[] = [];
  const strings: (string | LongString)[] = [];
  let at = 0;
  for (const [start, end] of plain) {
    pieces.push(TEXT.decode(bytes.subarray(at, start)), `${mark}${strings.length}`);
    const kept = new LongString(bytes.subarray(start, end));
    // A kept string's control characters are refused by whoever reads it.
    strings.push(end - start >= keepFrom ? kept : kept.toString());
    at = end;
  }
  pieces.push(TEXT.decode(bytes.subarray(at)));
  return restore(JSON.parse(pieces.join("")), mark, strings);
}

/** `value` with every marked string (value or key) replaced by the string it stands for. */
function restore(value: unknown, mark: string, strings: (string | LongString)[]): unknown {
  if (typeof value === "string") {
    return value.startsWith(mark) ? strings[Number(value.slice(mark.length))] : value;
  }
  if (Array.isArray(value)) return value.map((item) => restore(item, mark, strings));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      String(restore(key, mark, strings)),
      restore(item, mark, strings),
    ]),
  );
}
