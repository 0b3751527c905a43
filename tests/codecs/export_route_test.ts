import assert from "node:assert/strict";
import { sniffKind } from "../../lib/codecs/image_info.ts";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { encodeFixture, screenshotPixels } from "../../testing/codecs.ts";

const MOBILE_PNG = await encodeFixture(screenshotPixels(375, 667), "png");

function form(image: Uint8Array, fields: Record<string, string>, type = "image/png") {
  const body = new FormData();
  body.set("image", new File([image.slice()], "screenshot.png", { type }));
  for (const [name, value] of Object.entries(fields)) body.set(name, value);
  return body;
}

Deno.test("POST /api/export returns the recompressed bytes as a download with size headers", async () => {
  const { app, log, close } = await createTestApp();
  try {
    const res = await app.request("/api/export", {
      method: "POST",
      body: form(MOBILE_PNG, { format: "webp", qualityPreset: "high" }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/webp");
    const body = new Uint8Array(await res.arrayBuffer());
    assert.equal(sniffKind(body), "webp");
    assert.equal(res.headers.get("content-length"), String(body.length));
    assert.equal(res.headers.get("content-disposition"), 'attachment; filename="export.webp"');
    assert.equal(res.headers.get("x-export-input-bytes"), String(MOBILE_PNG.length));
    assert.equal(res.headers.get("x-export-output-bytes"), String(body.length));
    assert.equal(res.headers.get("x-export-encoder"), "wasm");
    assert.equal(res.headers.get("cache-control"), "no-store");
    const line = log.lines.find((l) => l.msg === "request" && l.path === "/api/export");
    assert.equal(line?.encoder, "wasm");
    assert.equal(line?.inputBytes, MOBILE_PNG.length);
    assert.equal(line?.outputBytes, body.length);
    assert.equal(line?.format, "webp");
  } finally {
    await close();
  }
});

Deno.test("each format gets its content type and file extension", async () => {
  const { app, close } = await createTestApp();
  try {
    const expected = {
      png: ["image/png", "png"],
      jpeg: ["image/jpeg", "jpg"],
      webp: ["image/webp", "webp"],
    };
    for (const [format, [type, extension]] of Object.entries(expected)) {
      const res = await app.request("/api/export", {
        method: "POST",
        body: form(MOBILE_PNG, { format, qualityPreset: "low" }),
      });
      assert.equal(res.status, 200, format);
      assert.equal(res.headers.get("content-type"), type);
      assert.equal(sniffKind(new Uint8Array(await res.arrayBuffer())), format);
      assert.match(
        res.headers.get("content-disposition") ?? "",
        new RegExp(`export\\.${extension}"$`),
      );
    }
  } finally {
    await close();
  }
});

Deno.test("the input type comes from the bytes, not the declared content type or name", async () => {
  const { app, close } = await createTestApp();
  try {
    const jpeg = await encodeFixture(screenshotPixels(120, 80), "jpeg");
    const body = new FormData();
    body.set("image", new File([jpeg.slice()], "picture.png", { type: "image/png" }));
    body.set("format", "png");
    body.set("qualityPreset", "medium");
    const res = await app.request("/api/export", { method: "POST", body });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.equal(sniffKind(new Uint8Array(await res.arrayBuffer())), "png");
  } finally {
    await close();
  }
});

Deno.test("GET /api/export answers 405 with Allow: POST", async () => {
  const { app, close } = await createTestApp();
  try {
    const res = await app.request("/api/export");
    assert.equal(res.headers.get("allow"), "POST, OPTIONS");
    await assertEnvelope(app, res, 405, "method_not_allowed");
  } finally {
    await close();
  }
});

Deno.test("/healthz reports the encoder in use", async () => {
  const { app, close } = await createTestApp();
  try {
    const res = await app.request("/healthz");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal((await res.json()).encoder, "wasm");
  } finally {
    await close();
  }
});

Deno.test("/openapi.json documents the multipart upload, the image responses and the errors", async () => {
  const { app, close } = await createTestApp();
  try {
    const doc = await (await app.request("/openapi.json")).json();
    const post = doc.paths["/api/export"].post;
    const get = doc.paths["/api/export"].get;
    assert.equal(post.operationId, "optimizeExportImage");
    assert.equal(get.operationId, "optimizeExportImageMethodProbe");
    const schemaRef = post.requestBody.content["multipart/form-data"].schema.$ref;
    const schema = doc.components.schemas[schemaRef.split("/").pop()];
    assert.deepEqual(schema.required.sort(), ["format", "image", "qualityPreset"]);
    assert.deepEqual([schema.properties.image.type, schema.properties.image.format], [
      "string",
      "binary",
    ]);
    assert.deepEqual(schema.properties.format.enum, ["png", "jpeg", "webp"]);
    assert.deepEqual(schema.properties.qualityPreset.enum, ["high", "medium", "low"]);
    assert.deepEqual(Object.keys(post.responses[200].content), [
      "image/png",
      "image/jpeg",
      "image/webp",
    ]);
    assert.ok(post.responses[200].headers["X-Export-Encoder"]);
    for (const status of ["400", "413", "500", "503"]) assert.ok(post.responses[status], status);
    assert.ok(post.responses[503].headers["Retry-After"]);
    const llms = await (await app.request("/llms.txt")).text();
    assert.match(llms, /-F image=@screenshot\.png -F format=webp -F qualityPreset=high/);
  } finally {
    await close();
  }
});
