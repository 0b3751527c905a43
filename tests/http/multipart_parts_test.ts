/**
 * Upload forms: our linear parser (named parts, files, framing errors) and the part bound, a
 * multipart body of more parts than MAX_FORM_PARTS refused before any part is kept.
 */
import assert from "node:assert/strict";
import { MalformedForm, parseForm, PartFile } from "../../lib/http/form_parser.ts";
import { multipartBody } from "../../lib/http/multipart_body.ts";
import { SLICE_BYTES } from "../../lib/http/turns.ts";
import { MAX_FORM_PARTS } from "../../lib/http/multipart_parts.ts";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";

const encoder = new TextEncoder();

/** A multipart body of `count` small text parts, boundary "b". */
function partsBody(count: number): Uint8Array<ArrayBuffer> {
  const part = '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n';
  return encoder.encode(part.repeat(count) + "--b--\r\n");
}

Deno.test("parseForm reads named parts and files, and stops past the part bound", async () => {
  const body = encoder.encode(
    "preamble\r\n--b\r\n" +
      'Content-Disposition: form-data; name="format"\r\n\r\npng\r\n--b  \r\n' +
      'Content-Disposition: form-data; name="image"; filename="a%22b.png"\r\n' +
      "Content-Type: image/png\r\n\r\n\r\n--x\r\n--b\r\n" +
      'Content-Disposition: form-data; name="empty"\r\n\r\n\r\n--b--\r\n',
  );
  const form = await parseForm(body, "b", 16);
  assert.equal(form.get("format"), "png");
  const image = form.get("image") as File;
  assert.equal(image.name, 'a"b.png');
  assert.equal(image.type, "image/png");
  assert.equal(
    await image.text(),
    "\r\n--x",
    "a line that only starts like a delimiter is content",
  );
  assert.equal(form.get("empty"), "");
  await assert.rejects(
    parseForm(partsBody(17), "b", 16),
    (e) => e instanceof MalformedForm && e.tooManyParts,
  );
  assert.equal([...(await parseForm(partsBody(16), "b", 16)).keys()].length, 16);
  for (const broken of ["no delimiter", "--b\r\nno header end", "--b\r\n\r\nno closing"]) {
    await assert.rejects(parseForm(encoder.encode(broken), "b", 16), MalformedForm, broken);
  }
});

Deno.test("a file larger than a slice is read whole, whatever slice its closing delimiter straddles", async () => {
  for (const shift of [-20, -9, -3, 0, 5]) {
    const content = new Uint8Array(SLICE_BYTES + shift).fill(0x0d); // carriage returns, the worst
    content[0] = 1;
    content[content.length - 1] = 2;
    const { body, contentType } = await multipartBody([
      { name: "format", value: "png" },
      { name: "image", value: content, filename: 'a"b\r\n.png' },
    ]);
    const boundary = contentType.split("boundary=")[1];
    const form = await parseForm(body, boundary, 16);
    const image = form.get("image");
    assert.ok(image instanceof PartFile, "the part keeps its bytes");
    assert.equal(image.name, 'a"b\r\n.png');
    assert.equal(image.size, content.length);
    const bytes = await image.bytes();
    assert.equal(bytes.buffer, body.buffer, "a view of the body, not a copy");
    assert.deepEqual(bytes, content, `shift ${shift}`);
    assert.deepEqual(new Uint8Array(await image.arrayBuffer()), content);
    assert.equal(form.get("format"), "png");
  }
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
