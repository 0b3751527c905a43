/**
 * POST /api/frame and `frame` on POST /api/screenshot, in process: the answers decoded, bad
 * fields named in 400s, and a new frame of a cached capture rendering nothing.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../../testing/app.ts";
import { createCaptureApp, pngOf } from "../../testing/capture_app.ts";
import { encodeFixture, screenshotPixels } from "../../testing/codecs.ts";
import { decodePng } from "../../testing/capture_fixtures.ts";
import { readImageInfo, sniffKind } from "../../lib/codecs/image_info.ts";
import { pngSize } from "../../testing/png.ts";
import { deflateSync } from "node:zlib";
import { concatBytes } from "../../lib/bytes.ts";
import { pngChunk } from "../../lib/codecs/png_encoder.ts";

type App = Awaited<ReturnType<typeof createTestApp>>["app"];

async function postFrame(app: App, image: Uint8Array, parts: Record<string, string>) {
  const form = new FormData();
  form.append("image", new Blob([image as Uint8Array<ArrayBuffer>]), "shot");
  for (const [name, value] of Object.entries(parts)) form.append(name, value);
  return await app.request("/api/frame", { method: "POST", body: form });
}

/** A PNG whose header claims `width` x `height` over one row of data. */
function pngClaiming(width: number, height: number): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8);
  return concatBytes([
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", new Uint8Array(deflateSync(new Uint8Array(1 + width * 3)))),
    pngChunk("IEND", new Uint8Array()),
  ]);
}

const sizeOf = (bytes: Uint8Array) => {
  const kind = sniffKind(bytes);
  const info = kind && readImageInfo(kind, bytes);
  return info ? { kind, width: info.width, height: info.height } : null;
};

Deno.test("POST /api/frame frames a PNG, a JPEG and a WebP, in each output format", async () => {
  const t = await createTestApp();
  try {
    const pixels = screenshotPixels(640, 400);
    for (const kind of ["png", "jpeg", "webp"] as const) {
      const upload = await encodeFixture(pixels, kind);
      const res = await postFrame(t.app, upload, { frame: '{"size":"og","device":"laptop"}' });
      assert.equal(res.status, 200, kind);
      assert.equal(res.headers.get("content-type"), "image/png");
      assert.match(res.headers.get("content-disposition") ?? "", /filename="frame\.png"/);
      assert.match(res.headers.get("x-frame-image") ?? "", /^\d+,\d+,\d+,\d+$/);
      assert.deepEqual(sizeOf(new Uint8Array(await res.arrayBuffer())), {
        kind: "png",
        width: 1200,
        height: 630,
      });
    }
    const upload = await encodeFixture(pixels, "png");
    for (const format of ["jpeg", "webp"] as const) {
      const res = await postFrame(t.app, upload, { format, qualityPreset: "medium" });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), `image/${format}`);
      // Without a size: the image plus the default padding (64) on each side.
      assert.deepEqual(sizeOf(new Uint8Array(await res.arrayBuffer())), {
        kind: format,
        width: 768,
        height: 528,
      });
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/frame: separate parts and one frame part are the same design", async () => {
  const t = await createTestApp();
  try {
    const upload = await encodeFixture(screenshotPixels(300, 200), "png");
    const design = {
      background: { from: "#1a2b3c", to: "#f0e0d0", angle: 45 },
      padding: 24,
      radius: 16,
      shadow: 70,
      browserBar: "dark",
      size: { width: 500, height: 400 },
      fit: "cover",
    };
    const one = await postFrame(t.app, upload, { frame: JSON.stringify(design) });
    const parts = Object.fromEntries(
      Object.entries(design).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
    );
    const separate = await postFrame(t.app, upload, parts);
    assert.equal(one.status, 200);
    assert.equal(separate.status, 200);
    const a = decodePng(new Uint8Array(await one.arrayBuffer()));
    const b = decodePng(new Uint8Array(await separate.arrayBuffer()));
    assert.deepEqual([a.width, a.height], [500, 400]);
    assert.deepEqual(a.pixels, b.pixels);
    assert.equal(one.headers.get("x-frame-image"), separate.headers.get("x-frame-image"));
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/frame names the bad field in its 400", async () => {
  const t = await createTestApp();
  try {
    const upload = await encodeFixture(screenshotPixels(64, 64), "png");
    const cases: [Record<string, string>, RegExp, string][] = [
      [{ padding: "-3" }, /frame\.padding/, "invalid_request"],
      [{ shadow: "101" }, /frame\.shadow/, "invalid_request"],
      [{ device: "watch" }, /frame\.device must be one of: none, browser/, "unsupported_value"],
      [{ background: "#abcde" }, /frame\.background/, "invalid_request"],
      [{ frame: '{"colour":"#ffffff"}' }, /colour/, "invalid_request"],
      [{ frame: '{"size":"tiktok"}' }, /frame\.size/, "invalid_request"],
      [{ frame: '{"size":{"width":9000,"height":10}}' }, /frame\.size/, "invalid_request"],
      [{ frame: "{}", padding: "3" }, /not both/, "invalid_request"],
      [{ browserBar: "true" }, /frame\.browserBar/, "invalid_request"],
    ];
    for (const [parts, message, code] of cases) {
      const res = await postFrame(t.app, upload, parts);
      assert.equal(res.status, 400, JSON.stringify(parts));
      const body = await res.json();
      assert.equal(body.code, code, JSON.stringify(parts));
      assert.match(body.error, message, JSON.stringify(parts));
    }
    const text = await postFrame(t.app, new TextEncoder().encode("not an image"), {});
    assert.equal(text.status, 400);
    assert.equal((await text.json()).code, "unsupported_value");
  } finally {
    await t.close();
  }
});

Deno.test("a frame too large for memory is refused before any decoding", async () => {
  const t = await createTestApp();
  try {
    // A PNG that says it is 6000x6000 (its header is all that is read): over 40 MP framed.
    const upload = pngClaiming(6000, 6000);
    const res = await postFrame(t.app, upload, { padding: "512" });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.match(body.error, /7024x7024 pixels, over the 40000000 pixel limit/);
    assert.match(body.hint, /frame\.size/);
  } finally {
    await t.close();
  }
});

Deno.test("frame on a capture answers the framed image; a new frame renders no page", async () => {
  const t = await createCaptureApp();
  try {
    const first = await t.shoot({ url: "https://example.com", frame: { size: "og" } });
    assert.equal(first.status, 200);
    const body = await first.json();
    assert.deepEqual(pngSize(pngOf(body)), { width: 1200, height: 630 });
    assert.deepEqual([body.width, body.height], [1200, 630]);
    assert.equal(body.frame.width, 1200);
    assert.deepEqual(body.frame.crop, { x: 0, y: 0, width: 1920, height: 1080 });
    assert.equal(first.headers.get("x-image-width"), "1200");
    assert.equal(first.headers.get("x-cache"), "miss");
    assert.equal(t.capture.jobs.length, 1);
    // The capture was shot as the plain PNG: an unframed request is a hit on the same entry.
    const plain = await t.shoot({ url: "https://example.com" });
    assert.equal(plain.headers.get("x-cache"), "hit");
    assert.deepEqual(pngSize(pngOf(await plain.json())), { width: 1920, height: 1080 });
    // Another design of the cached capture: framed anew, nothing rendered.
    const second = await t.shoot(
      { url: "https://example.com", frame: { device: "laptop", size: "x" }, format: "jpeg" },
      { headers: { Accept: "image/jpeg" } },
    );
    assert.equal(second.status, 200);
    assert.equal(second.headers.get("content-type"), "image/jpeg");
    assert.equal(second.headers.get("x-cache"), "hit");
    assert.deepEqual(sizeOf(new Uint8Array(await second.arrayBuffer())), {
      kind: "jpeg",
      width: 1600,
      height: 900,
    });
    assert.equal(t.capture.jobs.length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("frame on a capture: other formats and bad fields are 400s", async () => {
  const t = await createCaptureApp();
  try {
    const pdf = await t.shoot({ url: "https://example.com", format: "pdf", frame: {} });
    assert.equal(pdf.status, 400);
    assert.match((await pdf.json()).error, /frame applies to images/);
    const bad = await t.shoot({ url: "https://example.com", frame: { fit: "stretch" } });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error, /frame\.fit must be one of: contain, cover, top/);
    const unknown = await t.shoot({ url: "https://example.com", frame: { border: 2 } });
    assert.equal(unknown.status, 400);
    assert.match((await unknown.json()).error, /border/);
    assert.equal(t.capture.jobs.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("a mobile capture in a phone: the capture at its own resolution on the screen", async () => {
  const t = await createCaptureApp();
  try {
    const res = await t.shoot({
      url: "https://example.com",
      deviceType: "mobile",
      frame: { device: "phone", background: "#ffffff" },
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    const { image, crop } = body.frame;
    assert.deepEqual([image.width, image.height], [crop.width, crop.height]);
    assert.equal(body.frame.scale, 1);
    const png = decodePng(pngOf(body));
    // The body is dark beside the screen; the screen shows the capture's own colour.
    const beside = png.rgb(image.x - 6, image.y + 300);
    assert.ok(beside[0] < 80, `bezel ${beside}`);
    const plain = decodePng(pngOf(
      await (await t.shoot({
        url: "https://example.com",
        deviceType: "mobile",
      })).json(),
    ));
    assert.deepEqual(png.rgb(image.x + 100, image.y + 300), plain.rgb(100, 300));
  } finally {
    await t.close();
  }
});
