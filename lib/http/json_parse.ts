/**
 * JSON.parse with the long strings of a body decoded natively. V8 parses a string character by
 * character: the one 33 MiB base64 string of an MCP export_image call at the upload limit took 0.6
 * to 1.3 s of JSON.parse on a loaded machine, on the event loop. A long string without escapes is
 * its UTF-8 bytes as they are, so it is cut out (jsonShape lists where), decoded by TextDecoder,
 * and put back into the parsed value in place of a per-request mark.
 */

const BACKSLASH = 0x5c;
const TEXT = new TextDecoder();
// JSON strings may not hold raw control characters; JSON.parse refuses them, so must we.
// deno-lint-ignore no-control-regex -- control characters are exactly what it looks for
const CONTROL = /[\u0000-\u001f]/;

/** The value of the JSON text `bytes`, whose long strings' contents lie at `longStrings`. */
export function parseJsonBytes(
  bytes: Uint8Array,
  longStrings: readonly [number, number][] = [],
): unknown {
  // A string with escapes is left to JSON.parse, which knows them all.
  const plain = longStrings.filter(([start, end]) =>
    bytes.subarray(start, end).indexOf(BACKSLASH) < 0
  );
  if (plain.length === 0) return JSON.parse(TEXT.decode(bytes));
  // A mark no client can guess, so no string it sends is taken for one of ours.
  const mark = `${crypto.randomUUID()}:`;
  const pieces: string[] = [];
  const strings: string[] = [];
  let at = 0;
  for (const [start, end] of plain) {
    pieces.push(TEXT.decode(bytes.subarray(at, start)), `${mark}${strings.length}`);
    const text = TEXT.decode(bytes.subarray(start, end));
    if (CONTROL.test(text)) throw new SyntaxError("Bad control character in string literal");
    strings.push(text);
    at = end;
  }
  pieces.push(TEXT.decode(bytes.subarray(at)));
  return restore(JSON.parse(pieces.join("")), mark, strings);
}

/** `value` with every marked string (value or key) replaced by the string it stands for. */
function restore(value: unknown, mark: string, strings: string[]): unknown {
  if (typeof value === "string") {
    return value.startsWith(mark) ? strings[Number(value.slice(mark.length))] : value;
  }
  if (Array.isArray(value)) return value.map((item) => restore(item, mark, strings));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      restore(key, mark, strings) as string,
      restore(item, mark, strings),
    ]),
  );
}
