import assert from "node:assert/strict";
import { concatBytes } from "../../lib/bytes.ts";
import type { ImageExporter } from "../../lib/codecs/exporter.ts";
import { pngChunk } from "../../lib/codecs/png_encoder.ts";
import { JobScheduler } from "../../lib/codecs/scheduler.ts";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { encodeFixture, screenshotPixels } from "../../testing/codecs.ts";

const PNG = await encodeFixture(screenshotPixels(64, 48), "png");

function form(parts: Record<string, string | Uint8Array>) {
  const body = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    body.set(name, typeof value === "string" ? value : new File([value.slice()], "upload.png"));
  }
  return body;
}

/** POSTs to /api/export on a fresh app and checks the error envelope. */
async function expectError(
  body: BodyInit,
  status: number,
  code: "invalid_request" | "unsupported_value" | "internal_error",
  init: RequestInit = {},
  env: Record<string, string> = {},
) {
  const { app, log, close } = await createTestApp({ env });
  try {
    const res = await app.request("/api/export", { method: "POST", body, ...init });
    return { envelope: await assertEnvelope(app, res, status, code), log };
  } finally {
    await close();
  }
}

/** A PNG whose header claims a size, with no image data behind it. */
function pngHeader(width: number, height: number): Uint8Array {
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, width);
  new DataView(ihdr.buffer).setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return concatBytes([PNG.subarray(0, 8), pngChunk("IHDR", ihdr)]);
}

Deno.test("a missing image part is 400 invalid_request", async () => {
  const { envelope } = await expectError(
    form({ format: "png", qualityPreset: "high" }),
    400,
    "invalid_request",
  );
  assert.match(String(envelope.error), /image/);
});

Deno.test("a body that is not multipart (JSON, or nothing) is 400 invalid_request", async () => {
  await expectError(
    JSON.stringify({ format: "png", qualityPreset: "high" }),
    400,
    "invalid_request",
    {
      headers: { "Content-Type": "application/json" },
    },
  );
  await expectError("", 400, "invalid_request");
});

Deno.test("an image sent as a text field rather than a file is 400 invalid_request", async () => {
  await expectError(
    form({ image: "aGVsbG8=", format: "png", qualityPreset: "high" }),
    400,
    "invalid_request",
  );
});

Deno.test("format and qualityPreset outside their sets are 400 unsupported_value naming the choices", async () => {
  const format = await expectError(
    form({ image: PNG, format: "gif", qualityPreset: "high" }),
    400,
    "unsupported_value",
  );
  assert.match(String(format.envelope.error), /format must be one of: png, jpeg, webp/);
  const preset = await expectError(
    form({ image: PNG, format: "png", qualityPreset: "max" }),
    400,
    "unsupported_value",
  );
  assert.match(String(preset.envelope.error), /qualityPreset must be one of: high, medium, low/);
});

Deno.test("a file that is not PNG, JPEG or WebP by its bytes is 400 unsupported_value", async () => {
  const gif = new TextEncoder().encode("GIF89a\x01\x00\x01\x00\x00\x00\x00;");
  const { envelope } = await expectError(
    form({ image: gif, format: "png", qualityPreset: "high" }),
    400,
    "unsupported_value",
  );
  assert.match(String(envelope.hint), /bytes/);
  await expectError(
    form({ image: new Uint8Array(0), format: "png", qualityPreset: "high" }),
    400,
    "invalid_request",
  );
});

Deno.test("images over 128 megapixels or 32767 px a side are refused from the header", async () => {
  // Only a header: reaching a decoder would fail with 500, so a 400 proves it was never decoded.
  for (const [width, height] of [[12000, 12000], [40000, 10]]) {
    const { envelope } = await expectError(
      form({ image: pngHeader(width, height), format: "webp", qualityPreset: "low" }),
      400,
      "unsupported_value",
    );
    assert.match(String(envelope.error), new RegExp(`${width}x${height}`));
    assert.match(String(envelope.hint), /Scale the image down/);
  }
});

Deno.test("a side WebP cannot hold is refused for WebP only, naming the formats that can", async () => {
  const { envelope } = await expectError(
    form({ image: pngHeader(1920, 20000), format: "webp", qualityPreset: "high" }),
    400,
    "unsupported_value",
  );
  assert.match(String(envelope.error), /WebP holds at most 16383/);
  assert.match(String(envelope.hint), /PNG or JPEG/);
});

Deno.test("a file with a valid header but broken data is 500 internal_error, details only in logs", async () => {
  const broken = PNG.slice();
  broken.fill(0x5a, 60, broken.length - 12); // image data overwritten, header intact
  const { envelope, log } = await expectError(
    form({ image: broken, format: "jpeg", qualityPreset: "high" }),
    500,
    "internal_error",
  );
  assert.doesNotMatch(JSON.stringify(envelope), /decode failed|zlib|wasm|stack/i);
  const line = log.lines.find((l) => l.msg === "request");
  assert.match(String(line?.exportFailure), /decode failed/);
  await expectError(
    form({ image: PNG.slice(0, 20), format: "png", qualityPreset: "high" }),
    500,
    "internal_error",
  );
});

Deno.test("a body over MAX_UPLOAD_BYTES is 413 invalid_request, declared or streamed", async () => {
  const env = { MAX_UPLOAD_BYTES: "4096" };
  const big = new Response(
    form({ image: new Uint8Array(8192), format: "png", qualityPreset: "high" }),
  );
  const declared = { headers: { "Content-Type": big.headers.get("content-type")! } };
  const bytes = new Uint8Array(await big.arrayBuffer()); // sent with its Content-Length
  await expectError(bytes, 413, "invalid_request", declared, env);
  // Chunked upload with no Content-Length: counted while streaming.
  const chunks = [new TextEncoder().encode("--b\r\n"), ...Array(10).fill(new Uint8Array(1024))];
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const init = { headers: { "Content-Type": "multipart/form-data; boundary=b" }, duplex: "half" };
  const { envelope } = await expectError(stream, 413, "invalid_request", init as RequestInit, env);
  assert.match(String(envelope.hint), /4096 bytes/);
});

/** POST /api/export with a streamed multipart body. */
function postStream(
  app: { request(path: string, init: RequestInit): Response | Promise<Response> },
  body: ReadableStream<Uint8Array>,
) {
  return app.request("/api/export", {
    method: "POST",
    headers: { "Content-Type": "multipart/form-data; boundary=b" },
    body,
    duplex: "half",
  } as RequestInit);
}

Deno.test("a full export queue is 503 upstream_unavailable with Retry-After", async () => {
  const scheduler = new JobScheduler({ slots: 1, smallSlots: 0, smallMaxPixels: 0, maxQueue: 0 });
  let release = () => {};
  let started = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  const running = new Promise<void>((resolve) => started = resolve);
  const exporter: ImageExporter = {
    encoder: "wasm",
    warm: () => Promise.resolve(),
    close: () => Promise.resolve(),
    reserve: () => scheduler.reserve(),
    export: (input) =>
      scheduler.run(1, async () => {
        started();
        await held;
        return {
          bytes: input.slice(),
          contentType: "image/png",
          extension: "png",
          width: 64,
          height: 48,
        };
      }),
  };
  const { app, close } = await createTestApp({ deps: { exporter } });
  try {
    const post = () =>
      app.request("/api/export", {
        method: "POST",
        body: form({ image: PNG, format: "png", qualityPreset: "low" }),
      });
    const first = post();
    await running;
    const busy = await post();
    assert.match(busy.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
    await assertEnvelope(app, busy, 503, "upstream_unavailable");
    // Refused before the upload is read at all (reading even to drop it costs memory under a
    // flood); the connection is closed after the answer.
    let chunksSent = 0;
    const upload = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (chunksSent++ === 3) return controller.close();
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const refused = await postStream(app, upload);
    assert.equal(refused.headers.get("connection"), "close");
    await assertEnvelope(app, refused, 503, "upstream_unavailable");
    assert.ok(chunksSent <= 1, `the refused upload was not read (${chunksSent} chunks pulled)`);
    release();
    const ok = await first;
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await close();
  }
});

Deno.test("an upload trickling past UPLOAD_TIMEOUT_MS is a 400 and frees its export place", async () => {
  // One place in all: while the slow upload holds it, nothing else is admitted.
  const scheduler = new JobScheduler({ slots: 1, smallSlots: 0, smallMaxPixels: 0, maxQueue: 0 });
  const exporter: ImageExporter = {
    encoder: "wasm",
    warm: () => Promise.resolve(),
    close: () => Promise.resolve(),
    reserve: (bytes) => scheduler.reserve(bytes),
    export: (input) =>
      scheduler.run(1, () =>
        Promise.resolve({
          bytes: input.slice(),
          contentType: "image/png",
          extension: "png",
          width: 64,
          height: 48,
        })),
  };
  const { app, close } = await createTestApp({
    env: { UPLOAD_TIMEOUT_MS: "200" },
    deps: { exporter },
  });
  try {
    let cancelled = false;
    const trickle = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode("--b\r\n")),
      pull: () => new Promise(() => {}), // then nothing more, ever
      cancel: () => void (cancelled = true),
    });
    const slow = await postStream(app, trickle);
    const envelope = await assertEnvelope(app, slow, 400, "invalid_request");
    assert.match(String(envelope.message), /did not arrive in time/);
    assert.ok(cancelled, "the client's body was cancelled");
    const next = await app.request("/api/export", {
      method: "POST",
      body: form({ image: PNG, format: "png", qualityPreset: "low" }),
    });
    assert.equal(next.status, 200, "the place was freed");
    await next.body?.cancel();
  } finally {
    await close();
  }
});
