/**
 * Property tests of the multipart path of POST /api/export: arbitrary parts and fields, and
 * arbitrary raw bodies, get a 4xx envelope; never a 5xx except the documented 500 for a file
 * that looks like an image but cannot be decoded; never a hang.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { concatBytes } from "../../lib/bytes.ts";
import { sniffKind } from "../../lib/codecs/image_info.ts";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { pngDeclaring, validPng } from "../../testing/bad_images.ts";
import { within60s } from "../../testing/fault_checks.ts";

const MAGIC = {
  png: Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10]),
  jpeg: Uint8Array.from([0xff, 0xd8, 0xff]),
  webp: new TextEncoder().encode("RIFF\0\0\0\0WEBP"),
};

/** File contents: junk, junk behind a magic number, real small PNGs, lying headers. */
const fileBytes = fc.oneof(
  fc.uint8Array({ maxLength: 512 }),
  fc.tuple(fc.constantFrom(...Object.values(MAGIC)), fc.uint8Array({ maxLength: 256 })).map(
    ([magic, rest]) => concatBytes([magic, rest]),
  ),
  fc.tuple(fc.integer({ min: 1, max: 48 }), fc.integer({ min: 1, max: 48 })).map(([w, h]) =>
    validPng(w, h)
  ),
  fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 2 ** 32 - 1 })).map(
    ([w, h]) => pngDeclaring(w, h, 0),
  ),
);

type Part = { name: string; value: string | { bytes: Uint8Array; type: string; filename: string } };

const partName = fc.oneof(
  fc.constantFrom("image", "image", "format", "qualityPreset", "Image", "image[]", "", "file"),
  fc.string({ maxLength: 12 }),
);
const partValue: fc.Arbitrary<Part["value"]> = fc.oneof(
  fc.constantFrom("png", "jpeg", "webp", "high", "medium", "low", "PNG", "gif", "", " png"),
  fc.string({ maxLength: 40 }),
  fc.record({
    bytes: fileBytes,
    type: fc.constantFrom("image/png", "text/html", ""),
    filename: fc.constantFrom("a.png", ""),
  }),
);
const file = fc.record({
  bytes: fileBytes,
  type: fc.constantFrom("image/png", "image/jpeg", "application/zip", "text/html", ""),
  filename: fc.constantFrom("a.png", "../../etc/passwd", "", "x\r\ny.png", "ü.webp"),
});
const option = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 4 });
/** Mostly-right requests (each field present and valid most of the time) plus stray parts. */
const parts: fc.Arbitrary<Part[]> = fc.record({
  image: option(fc.oneof({ weight: 4, arbitrary: file }, { weight: 1, arbitrary: partValue })),
  format: option(fc.oneof({ weight: 4, arbitrary: fc.constantFrom("png", "jpeg", "webp") }, {
    weight: 1,
    arbitrary: partValue,
  })),
  qualityPreset: option(fc.oneof({ weight: 4, arbitrary: fc.constantFrom("high", "low") }, {
    weight: 1,
    arbitrary: partValue,
  })),
  extra: fc.array(fc.record({ name: partName, value: partValue }), { maxLength: 3 }),
  order: fc.integer({ min: 0, max: 3 }),
}).map(({ extra, order, ...core }) => {
  const named = Object.entries(core).filter(([, v]) => v !== undefined)
    .map(([name, value]) => ({ name, value: value! }));
  const list = [...named, ...extra];
  return [...list.slice(order), ...list.slice(0, order)];
});

function formOf(list: Part[]): FormData {
  const form = new FormData();
  for (const { name, value } of list) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, new File([value.bytes.slice()], value.filename, { type: value.type }));
  }
  return form;
}

/** Whether some part named "image" is a file whose bytes sniff as PNG, JPEG or WebP. */
function hasImageLike(list: Part[]): boolean {
  return list.some(({ name, value }) =>
    name === "image" && typeof value !== "string" && sniffKind(value.bytes) !== undefined
  );
}

type App = Awaited<ReturnType<typeof createTestApp>>["app"];

/** Checks one answer against the contract and returns its status. */
async function checkAnswer(app: App, res: Response, imageLike: boolean, label: string) {
  if (res.status === 200) {
    assert.ok(imageLike, `${label}: 200 without an image`);
    assert.match(res.headers.get("content-type") ?? "", /^image\/(png|jpeg|webp)$/);
    await res.body?.cancel();
    return 200;
  }
  const code = (await res.clone().json()).code;
  if (res.status === 500) {
    assert.ok(imageLike, `${label}: 500 for a body with no image-like file`);
    await assertEnvelope(app, res, 500, "internal_error");
    return 500;
  }
  assert.ok(res.status === 400 || res.status === 413, `${label}: status ${res.status}`);
  assert.ok(["invalid_request", "unsupported_value"].includes(code), `${label}: ${code}`);
  await assertEnvelope(app, res, res.status, code);
  return res.status;
}

Deno.test("arbitrary multipart parts get a 4xx envelope, or 500 only for an undecodable image", async () => {
  const t = await createTestApp();
  const seen = new Map<number, number>();
  try {
    await fc.assert(
      fc.asyncProperty(parts, async (list) => {
        const label = JSON.stringify(list.map((p) => p.name));
        const res = await within60s(
          label,
          Promise.resolve(t.app.request("/api/export", { method: "POST", body: formOf(list) })),
        );
        const status = await checkAnswer(t.app, res, hasImageLike(list), label);
        seen.set(status, (seen.get(status) ?? 0) + 1);
      }),
      { numRuns: 300 },
    );
    // The generator reaches the decoder too, not only the form checks.
    assert.ok(seen.has(400) && (seen.has(200) || seen.has(500)), `statuses: ${[...seen]}`);
  } finally {
    await t.close();
  }
});

const boundary = fc.constantFrom("b", "----x", "a".repeat(70), "a".repeat(200), '"q"', "");

Deno.test("arbitrary raw bodies and broken multipart framing are 4xx envelopes", async () => {
  const t = await createTestApp();
  try {
    const contentType = fc.oneof(
      boundary.map((b) => `multipart/form-data; boundary=${b}`),
      fc.constantFrom("multipart/form-data", "multipart/mixed; boundary=b", "image/png", ""),
      fc.constantFrom("application/json", "application/x-www-form-urlencoded", "text/plain"),
    );
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 1024 }),
      fc.tuple(boundary, fc.string({ maxLength: 200 })).map(([b, text]) =>
        new TextEncoder().encode(`--${b}\r\n${text}\r\n--${b}--\r\n`)
      ),
      fc.constantFrom(
        '--b\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\nxx',
        "--b\r\nContent-Disposition: form-data\r\n\r\npng\r\n--b--\r\n",
        "--b\r\n\r\n\r\n--b--",
        "--b--",
      ).map((text) => new TextEncoder().encode(text)),
    );
    await fc.assert(
      fc.asyncProperty(body, contentType, async (bytes, type) => {
        const headers = type ? { "Content-Type": type } : undefined;
        const res = await within60s(
          type,
          Promise.resolve(t.app.request("/api/export", { method: "POST", headers, body: bytes })),
        );
        // Raw junk can still carry a PNG magic number in a well-formed part; then 500 is allowed.
        const status = await checkAnswer(t.app, res, true, `${type}`);
        assert.notEqual(status, 200, "junk is never exported");
      }),
      { numRuns: 300 },
    );
    const health = await t.app.request("/healthz");
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    await t.close();
  }
});
