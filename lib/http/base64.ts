/**
 * Standard base64 text (a data: URI's payload is accepted, ASCII whitespace ignored) decoded to
 * bytes a slice per turn of the event loop (lib/http/turns.ts): an export_image upload at the
 * limit is 33 MiB of it, which one native decode and one pattern check held for 0.3 to 1.2 s on
 * two loaded cores. URL-safe letters, stray characters and a lone final character are refused.
 */
import { CONTROL_CHARACTERS, LongString } from "./long_string.ts";
import { nextTurn, SLICE_BYTES } from "./turns.ts";

const DATA_URI = /^data:[^,]*;base64,/i;

/** The bytes `value` encodes, or null when it is not standard base64 text. */
export async function decodeBase64(value: string | LongString): Promise<Uint8Array | null> {
  const slices = value instanceof LongString ? value.slices() : stringSlices(value);
  const size = value instanceof LongString ? value.bytes.length : value.length;
  const output = new Uint8Array(Math.ceil(size / 4) * 3);
  let written = 0;
  let carry = "";
  let first = true;
  // Padding ends the text: nothing but whitespace may follow it, in this slice or a later one.
  let padded = false;
  let next = slices.next();
  while (!next.done) {
    let text = next.value;
    next = slices.next();
    if (first) text = text.replace(DATA_URI, "");
    first = false;
    // Raw control characters are not JSON (whitespace among them would pass the decoder).
    if (value instanceof LongString && CONTROL_CHARACTERS.test(text)) return null;
    if (padded && /\S/.test(text)) return null;
    try {
      // Only whole groups of four are decoded until the last slice; the rest waits for it.
      const pending = carry + text;
      const { read, written: more } = output.subarray(written).setFromBase64(pending, {
        lastChunkHandling: next.done ? "loose" : "stop-before-partial",
      });
      padded = lastNonSpace(pending, read) === "=";
      carry = pending.slice(read);
      written += more;
    } catch {
      return null;
    }
    if (!next.done) await nextTurn();
  }
  return output.subarray(0, written);
}

/** The last character before `end` that is not ASCII whitespace ("" when none is). */
function lastNonSpace(text: string, end: number): string {
  let at = end - 1;
  while (at >= 0 && " \t\n\f\r".includes(text[at])) at--;
  return at >= 0 ? text[at] : "";
}

function* stringSlices(text: string): Generator<string> {
  if (text.length === 0) yield "";
  for (let at = 0; at < text.length; at += SLICE_BYTES) yield text.slice(at, at + SLICE_BYTES);
}
