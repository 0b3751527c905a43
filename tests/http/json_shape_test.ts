/**
 * The JSON bounds of every body: values and nesting counted by one scan before any parse, and the
 * 400 a capture body past them gets (before the schema checks each of its values).
 */
import assert from "node:assert/strict";
import { JSON_BOUNDS, jsonShape } from "../../lib/http/json_shape.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("jsonShape counts values, nesting and the top-level array, skipping strings", () => {
  // Brackets, commas and colons: an upper bound of the values, members counted with their keys.
  assert.deepEqual(jsonShape(bytes('{"a":1,"b":[1,2]}')), { values: 6, depth: 2 });
  assert.deepEqual(jsonShape(bytes(' [ {"id":1} , {"id":2} ] ')), {
    values: 6,
    depth: 2,
    batch: 2,
  });
  assert.equal(jsonShape(bytes("[]")).batch, 0);
  assert.equal(jsonShape(bytes("[ [] ]")).batch, 1);
  // Brackets, commas and escaped quotes inside strings are text, not structure.
  assert.deepEqual(jsonShape(bytes(String.raw`["a,[{:\"],\\", "b"]`)), {
    values: 2,
    depth: 1,
    batch: 2,
  });
  assert.deepEqual(jsonShape(bytes(`"${"x".repeat(100_000)}"`)), { values: 0, depth: 0 });
});

Deno.test("jsonShape stops at the first bound passed", () => {
  const bounds = { maxValues: 10, maxDepth: 3 };
  assert.equal(jsonShape(bytes(`[${"0,".repeat(10)}0]`), bounds).over, "values");
  assert.equal(jsonShape(bytes(`[${"0,".repeat(8)}0]`), bounds).over, undefined);
  assert.equal(jsonShape(bytes("[[[[]]]]"), bounds).over, "depth");
  assert.equal(jsonShape(bytes("[[[]]]"), bounds).over, undefined);
});

Deno.test("a capture body past the JSON bounds is refused with 400 naming the bound", async () => {
  const t = await createCaptureApp();
  try {
    const many = JSON_BOUNDS.maxValues + 1;
    const refusals: Array<[unknown, RegExp]> = [
      [{ url: "https://example.com", hideSelectors: new Array(many).fill("a") }, /10000 values/],
      [{ url: "https://example.com", blockRequests: new Array(many).fill("*a*") }, /10000 values/],
      [{
        url: "https://example.com",
        headers: Object.fromEntries(Array.from({ length: many }, (_, i) => [`h${i}`, "v"])),
      }, /10000 values/],
      [
        { url: "https://example.com", extra: JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`) },
        /32 levels/,
      ],
    ];
    for (const [body, hint] of refusals) {
      const res = await t.shoot(body);
      const envelope = await assertEnvelope(t.app, res, 400, "invalid_request");
      assert.match(String(envelope.hint), hint);
    }
    assert.equal(t.capture.jobs.length, 0, "nothing was captured");
    // Within the bounds, the field's own limit still answers (naming the field).
    const res = await t.shoot({
      url: "https://example.com",
      hideSelectors: new Array(21).fill("a"),
    });
    const envelope = await assertEnvelope(t.app, res, 400, "invalid_request");
    assert.match(JSON.stringify(envelope), /hideSelectors/);
  } finally {
    await t.close();
  }
});
