/**
 * JSON.parse with long strings decoded natively: the same value as JSON.parse for long strings as
 * values and keys, with and without escapes, and the same refusal of raw control characters.
 */
import assert from "node:assert/strict";
import { parseJsonBytes } from "../../lib/http/json_parse.ts";
import { jsonShape } from "../../lib/http/json_shape.ts";
import { jsonBytes, LongString } from "../../lib/http/long_string.ts";
import { admitMessages } from "../../lib/mcp/batch.ts";

const bounds = { maxValues: 10_000, maxDepth: 32, longString: 16 };

function parsed(text: string): unknown {
  const bytes = new TextEncoder().encode(text);
  return parseJsonBytes(bytes, jsonShape(bytes, bounds).longStrings);
}

Deno.test("long strings come back as JSON.parse gives them, as values and as keys", () => {
  const long = "AbC+/=".repeat(10) + "ü€😀";
  const texts = [
    JSON.stringify({ image: long, format: "png", list: [long, "short", 1, null, true] }),
    JSON.stringify({ [long]: { nested: [long] }, other: long }),
    // With escapes: left to JSON.parse.
    JSON.stringify({ a: `${long}"quoted"\\\n`, b: long }),
    JSON.stringify([{ jsonrpc: "2.0", id: 1, params: { x: long } }, "x:0", `${long}`]),
  ];
  for (const text of texts) {
    assert.deepEqual(parsed(text), JSON.parse(text), text.slice(0, 60));
    assert.ok(jsonShape(new TextEncoder().encode(text), bounds).longStrings?.length, "cut out");
  }
});

Deno.test("a raw control character in a long string is refused as JSON.parse refuses it", () => {
  const text = `{"a":"${"x".repeat(20)}\n${"y".repeat(20)}"}`;
  assert.throws(() => JSON.parse(text), SyntaxError);
  assert.throws(() => parsed(text), SyntaxError);
});

Deno.test("an MCP message with a long base64 string is admitted whole", () => {
  const image = "iVBORw0KGgo".repeat(10_000);
  const message = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "export_image", arguments: { image, format: "png", qualityPreset: "high" } },
  };
  const admission = admitMessages(new TextEncoder().encode(JSON.stringify(message)), undefined);
  assert.deepEqual(admission, { ok: true, messages: message });
});

Deno.test("strings from the kept size on stay bytes, and a JSON body of them is the same JSON", async () => {
  const long = "QUJD".repeat(300_000); // 1.2 MiB: past the MCP batch's kept size
  const message = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "export_image", arguments: { image: long, format: "png", note: 'é"' } },
  };
  const admission = admitMessages(new TextEncoder().encode(JSON.stringify(message)), undefined);
  assert.ok(admission.ok);
  const args = (admission.messages as typeof message).params.arguments as Record<string, unknown>;
  assert.ok(args.image instanceof LongString, "kept as bytes");
  assert.equal(String(args.image), long);
  assert.equal(args.note, 'é"', "short strings are strings");
  // Spliced into a new body unchanged: the same JSON as the original arguments'.
  const body = await jsonBytes({ ...args, list: [args.image, 1] });
  assert.deepEqual(JSON.parse(new TextDecoder().decode(body)), {
    ...message.params.arguments,
    list: [long, 1],
  });
});
