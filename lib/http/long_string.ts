/**
 * A long string of a JSON body (an MCP export_image upload's base64: up to 33 MiB) kept as the
 * UTF-8 bytes it arrived as, instead of a JavaScript string: decoding 33 MiB in one piece held the
 * event loop 0.2 to 0.3 s, and every later pass over the string (a pattern check, a base64
 * decode) as long again. Whoever needs the value takes the bytes a slice at a time
 * (lib/http/base64.ts), or splices them into a new JSON body unchanged (`jsonBytes`).
 */
import { joinInSlices, SLICE_BYTES } from "./turns.ts";

const TEXT = new TextDecoder();
const ENCODER = new TextEncoder();
// JSON strings may not hold raw control characters; JSON.parse refuses them, so must we.
// deno-lint-ignore no-control-regex -- control characters are exactly what it looks for
export const CONTROL_CHARACTERS = /[\u0000-\u001f]/;

/** The contents of one JSON string without escapes (between its quotes), as bytes. */
export class LongString {
  constructor(readonly bytes: Uint8Array) {}

  /** The text, decoded in one piece (a SyntaxError for a raw control character, as JSON's). */
  toString(): string {
    const text = TEXT.decode(this.bytes);
    if (CONTROL_CHARACTERS.test(text)) {
      throw new SyntaxError("Bad control character in string literal");
    }
    return text;
  }

  /** As a JSON value: the text (JSON.stringify calls this). */
  toJSON(): string {
    return this.toString();
  }

  /** The text a slice of about SLICE_BYTES at a time (cut between UTF-8 sequences). */
  *slices(): Generator<string> {
    const decoder = new TextDecoder();
    for (let at = 0; at < this.bytes.length; at += SLICE_BYTES) {
      const last = at + SLICE_BYTES >= this.bytes.length;
      yield decoder.decode(this.bytes.subarray(at, at + SLICE_BYTES), { stream: !last });
    }
  }
}

/**
 * `value` as a JSON body, with each LongString's bytes copied in as they arrived instead of being
 * decoded and escaped again (they need no escaping: they had no backslash). A raw control
 * character in them stays, and the body's reader refuses it as JSON.
 */
export async function jsonBytes(value: unknown): Promise<Uint8Array<ArrayBuffer>> {
  const kept: LongString[] = [];
  // A mark no client can guess, so no string it sends is taken for one of ours.
  const mark = `${crypto.randomUUID()}:`;
  const text = JSON.stringify(marked(value, mark, kept));
  if (kept.length === 0) return ENCODER.encode(text);
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (const [index, item] of kept.entries()) {
    // The quotes stay: only the mark between them is replaced.
    const where = text.indexOf(`"${mark}${index}"`, at) + 1;
    pieces.push(ENCODER.encode(text.slice(at, where)), item.bytes);
    at = where + mark.length + String(index).length;
  }
  pieces.push(ENCODER.encode(text.slice(at)));
  return await joinInSlices(pieces);
}

/** `value` with each LongString replaced by `mark` and its index in `kept` (pushed there). */
function marked(value: unknown, mark: string, kept: LongString[]): unknown {
  if (value instanceof LongString) return `${mark}${kept.push(value) - 1}`;
  if (Array.isArray(value)) return value.map((item) => marked(item, mark, kept));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, marked(item, mark, kept)]),
  );
}
