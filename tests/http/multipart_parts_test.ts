/**
 * The part bound of an upload: a multipart body of more parts than MAX_FORM_PARTS is refused
 * before the form parser reads it; the delimiter count stops past the bound.
 */
import assert from "node:assert/strict";
import { countDelimiters, MAX_FORM_PARTS } from "../../lib/http/multipart_parts.ts";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";

const encoder = new TextEncoder();

/** A multipart body of `count` small text parts, boundary "b". */
function partsBody(count: number): Uint8Array<ArrayBuffer> {
  const part = '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n';
  return encoder.encode(part.repeat(count) + "--b--\r\n");
}

Deno.test("countDelimiters counts parts and their closing delimiter, stopping past the bound", () => {
  assert.equal(countDelimiters(partsBody(3), "b", 16), 4);
  assert.equal(countDelimiters(partsBody(1000), "b", 16), 18, "stops at the bound plus one");
  assert.equal(countDelimiters(encoder.encode("no delimiter here"), "b", 16), 0);
});

Deno.test("an export form of more than MAX_FORM_PARTS parts is refused with 400 naming the bound", async () => {
  const t = await createTestApp();
  try {
    const post = (body: Uint8Array<ArrayBuffer>) =>
      t.app.request("/api/export", {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=b" },
        body,
      });
    const over = await post(partsBody(MAX_FORM_PARTS + 1));
    const envelope = await assertEnvelope(t.app, over, 400, "invalid_request");
    assert.match(String(envelope.message), /too many parts/);
    assert.match(String(envelope.hint), new RegExp(`at most ${MAX_FORM_PARTS} parts`));
    // At the bound, the form reaches the route, which finds no image in it.
    const at = await post(partsBody(MAX_FORM_PARTS));
    const answer = await assertEnvelope(t.app, at, 400, "invalid_request");
    assert.doesNotMatch(String(answer.message), /too many parts/);
  } finally {
    await t.close();
  }
});
