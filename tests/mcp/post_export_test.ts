/**
 * get_post on a loopback syndication upstream and export_image on the wasm exporter, over /mcp
 * with the SDK's client: answers, and the envelopes of their refusals.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { readImageInfo, sniffKind } from "../../lib/codecs/image_info.ts";
import { SLICE_BYTES } from "../../lib/http/turns.ts";
import { appWithUpstreams, startUpstream } from "../../testing/loopback_upstream.ts";
import { encodeFixture, screenshotPixels } from "../../testing/codecs.ts";
import { assertToolError, imageOf, mcpSession, textsOf } from "../../testing/mcp.ts";

const POST = { __typename: "Tweet", id_str: "20", text: "just setting up my twttr" };

async function postSetup() {
  const upstream = startUpstream((_req, url) => {
    const id = url.searchParams.get("id");
    if (id === "20") return Response.json(POST);
    return Response.json({ error: "not found" }, { status: 404 });
  });
  const t = await appWithUpstreams({ syndicationOrigin: upstream.origin, postTimeoutMs: 5_000 });
  return {
    t,
    upstream,
    async [Symbol.asyncDispose]() {
      await t.close();
      await upstream.close();
    },
  };
}

Deno.test("get_post answers with the post payload of GET /api/post/{id} as JSON text and structured content", async () => {
  await using s = await postSetup();
  await using mcp = await mcpSession(s.t.app);
  // Listed first, the SDK's client checks the structured content against the outputSchema.
  await mcp.client.listTools();
  const result = await mcp.call("get_post", { id: "020" });
  assert.notEqual(result.isError, true, textsOf(result).join());
  assert.deepEqual(result.content.map((item) => item.type), ["text"]);
  assert.deepEqual(JSON.parse(textsOf(result)[0]), { data: POST });
  assert.deepEqual(result.structuredContent, { data: POST });
  assert.equal(s.upstream.seen.length, 1);
  assert.equal(s.upstream.seen[0].url.searchParams.get("id"), "20", "leading zeros dropped");
});

Deno.test("get_post refusals are isError results: unknown post, bad id, no id", async () => {
  await using s = await postSetup();
  await using mcp = await mcpSession(s.t.app);
  const unknown = await mcp.call("get_post", { id: "404" });
  const envelope = await assertToolError(s.t.app, unknown, 404, "not_found");
  assert.equal(envelope.data, null, "the operation's failure shape, data: null included");
  await assertToolError(
    s.t.app,
    await mcp.call("get_post", { id: "12/../34" }),
    400,
    "invalid_request",
  );
  await assertToolError(s.t.app, await mcp.call("get_post", {}), 400, "invalid_request");
  assert.equal(s.upstream.seen.length, 1, "only the numeric id went upstream");
});

Deno.test("export_image recompresses a base64 image and answers with it as an image item", async () => {
  await using s = await postSetup();
  await using mcp = await mcpSession(s.t.app);
  await mcp.client.listTools();
  const png = await encodeFixture(screenshotPixels(320, 200), "png");
  const result = await mcp.call("export_image", {
    image: `data:image/png;base64,${Buffer.from(png).toString("base64")}`,
    format: "webp",
    qualityPreset: "medium",
  });
  const { mimeType, bytes } = imageOf(result);
  assert.equal(mimeType, "image/webp");
  assert.equal(sniffKind(bytes), "webp");
  const info = readImageInfo("webp", bytes);
  assert.deepEqual([info?.width, info?.height], [320, 200]);
  const about = JSON.parse(textsOf(result)[0]);
  assert.deepEqual(about, {
    contentType: "image/webp",
    bytes: bytes.length,
    width: 320,
    height: 200,
  });
  assert.deepEqual(result.structuredContent, about);
  const line = s.t.log.lines.find((l) => l.path === "/api/export");
  assert.deepEqual([line?.via, line?.tool, line?.inputBytes], ["mcp", "export_image", png.length]);
});

Deno.test("export_image refusals are isError results: not base64, not an image, a bad preset", async () => {
  await using s = await postSetup();
  await using mcp = await mcpSession(s.t.app);
  const png = Buffer.from(await encodeFixture(screenshotPixels(64, 48), "png")).toString("base64");
  const notBase64 = await mcp.call("export_image", {
    image: "not base64!",
    format: "png",
    qualityPreset: "high",
  });
  const envelope = await assertToolError(s.t.app, notBase64, 400, "invalid_request");
  assert.match(String(envelope.message), /image must be a base64-encoded file/);
  const text = Buffer.from("plain text, not a picture").toString("base64");
  const notImage = await mcp.call("export_image", {
    image: text,
    format: "png",
    qualityPreset: "high",
  });
  await assertToolError(s.t.app, notImage, 400, "unsupported_value");
  const preset = await mcp.call("export_image", {
    image: png,
    format: "png",
    qualityPreset: "best",
  });
  await assertToolError(s.t.app, preset, 400, "unsupported_value");
  const missing = await mcp.call("export_image", { format: "png", qualityPreset: "high" });
  await assertToolError(s.t.app, missing, 400, "invalid_request");
});

Deno.test("export_image takes an image whose base64 spans several slices, kept as bytes end to end", async () => {
  await using s = await postSetup();
  await using mcp = await mcpSession(s.t.app);
  // Noise does not compress: over 2 MiB of PNG, 3 MiB of base64 (past the kept size and a slice).
  const pixels = screenshotPixels(1000, 800);
  for (let at = 0; at < pixels.data.length; at += 65_536) {
    crypto.getRandomValues(pixels.data.subarray(at, at + 65_536));
  }
  for (let at = 3; at < pixels.data.length; at += 4) pixels.data[at] = 255;
  const png = await encodeFixture(pixels, "png");
  assert.ok(png.length > SLICE_BYTES, `${png.length} bytes`);
  const result = await mcp.call("export_image", {
    image: Buffer.from(png).toString("base64"),
    format: "jpeg",
    qualityPreset: "low",
  });
  const { bytes } = imageOf(result);
  assert.equal(sniffKind(bytes), "jpeg");
  const info = readImageInfo("jpeg", bytes);
  assert.deepEqual([info?.width, info?.height], [1000, 800]);
  const line = s.t.log.lines.find((l) => l.path === "/api/export");
  assert.equal(line?.inputBytes, png.length, "every byte arrived");
});
