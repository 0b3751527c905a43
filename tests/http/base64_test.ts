/** Base64 arguments decoded a slice at a time: the same answers as one decode, for every input. */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { decodeBase64 } from "../../lib/http/base64.ts";
import { LongString } from "../../lib/http/long_string.ts";
import { SLICE_BYTES } from "../../lib/http/turns.ts";

const encoder = new TextEncoder();
/** Both forms an argument arrives in: a string, or a long one kept as bytes. */
const forms = (text: string) => [text, new LongString(encoder.encode(text))];

Deno.test("small base64 arguments: what one decode accepts, and nothing else", async () => {
  const cases: [string, string | null][] = [
    ["", ""],
    ["QUJD", "ABC"],
    ["QUI=", "AB"],
    ["QUI", "AB"],
    ["QQ==", "A"],
    [" QU\nJD\r\n", "ABC"],
    ["data:image/png;base64,QUJD", "ABC"],
    ["Q", null],
    ["QUJDR", null],
    ["QQ==QUJD", null],
    ["QU-_", null],
    ["QU JD!", null],
    ["QUJDé", null],
  ];
  for (const [text, expected] of cases) {
    for (const value of forms(text)) {
      const decoded = await decodeBase64(value);
      // Kept bytes come from JSON without escapes: a raw line break there is not JSON.
      // deno-lint-ignore no-control-regex -- control characters are what it looks for
      const raw = value instanceof LongString && /[\u0000-\u001f]/.test(text);
      assert.equal(
        decoded === null ? null : new TextDecoder().decode(decoded),
        raw ? null : expected,
        `${JSON.stringify(text)} as ${typeof value}`,
      );
    }
  }
});

Deno.test("a base64 argument of several slices decodes to the same bytes as one decode", async () => {
  const bytes = new Uint8Array(SLICE_BYTES + 12_345);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
  const text = Buffer.from(bytes).toString("base64");
  // Line breaks (spaces in kept bytes, which come from JSON) every 76 characters move every
  // slice's cut off a group of four.
  const wrapped = (gap: string) => text.replace(/.{76}/g, `$&${gap}`);
  for (
    const value of [...forms(text), wrapped("\r\n"), new LongString(encoder.encode(wrapped(" ")))]
  ) {
    assert.deepEqual(await decodeBase64(value), bytes);
  }
  // Padding ends the text, even when a slice ends right after it.
  const cut = SLICE_BYTES - 4;
  const padded = "A".repeat(cut) + "QQ==" + "QUJD";
  for (const value of forms(padded)) assert.equal(await decodeBase64(value), null);
  // A raw control character is not JSON, even where a decoder would skip it as whitespace.
  assert.equal(await decodeBase64(new LongString(encoder.encode("QU\tJD"))), null);
});
