/**
 * Property tests of the JSON path of POST /api/screenshot, with the counting test capturer:
 * arbitrary JSON values, arbitrary bytes and near-valid bodies get a 4xx envelope and no capture
 * unless the body is a valid request; never a 5xx, never a hang.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { concatBytes } from "../../lib/bytes.ts";
import { parseTargetUrl } from "../../lib/capture/mod.ts";
import type { ErrorCode } from "../../lib/errors.ts";
import { createCaptureApp } from "../../testing/capture_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { within60s } from "../../testing/fault_checks.ts";

type CaptureApp = Awaited<ReturnType<typeof createCaptureApp>>;

/** POSTs a raw body and checks: a 4xx envelope and no capture, or (if allowed) one capture. */
async function expectRefusal(
  t: CaptureApp,
  body: BodyInit | null,
  contentType: string | null,
  mayCapture = false,
): Promise<number> {
  const headers: Record<string, string> = contentType ? { "Content-Type": contentType } : {};
  const before = t.capture.jobs.length;
  const res = await within60s(
    "POST /api/screenshot",
    Promise.resolve(t.app.request("/api/screenshot", { method: "POST", headers, body })),
  );
  if (res.status === 200 && mayCapture) {
    await res.body?.cancel();
    // One render, or none when the cache answered.
    assert.ok(t.capture.jobs.length - before <= 1);
    return 200;
  }
  assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
  const envelope = await assertEnvelope(t.app, res, res.status, await peekCode(res));
  assert.ok(
    ["invalid_request", "invalid_url", "unsupported_value"].includes(String(envelope.code)),
  );
  assert.equal(t.capture.jobs.length, before, "no capture for a refused body");
  return res.status;
}

/** Text and raw bytes joined into one body. */
function bytes(...parts: (string | number[])[]): Uint8Array<ArrayBuffer> {
  return concatBytes(
    parts.map((p) => typeof p === "string" ? new TextEncoder().encode(p) : new Uint8Array(p)),
  );
}

/** The `code` of an envelope, without consuming the response. */
async function peekCode(res: Response): Promise<ErrorCode> {
  return (await res.clone().json()).code;
}

Deno.test("arbitrary JSON values as the body are 4xx envelopes and never captured", async () => {
  const t = await createCaptureApp();
  try {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (value) => {
        await expectRefusal(t, JSON.stringify(value), "application/json");
      }),
      { numRuns: 400 },
    );
    assert.equal(t.capture.jobs.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("arbitrary bytes as the body, under any content type, are 4xx envelopes", async () => {
  const t = await createCaptureApp();
  try {
    const contentType = fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=latin1",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      "multipart/form-data; boundary=x",
      "application/octet-stream",
      "*/*",
      null,
    );
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), contentType, async (bytes, type) => {
        await expectRefusal(t, bytes, type);
      }),
      { numRuns: 400 },
    );
    assert.equal(t.capture.jobs.length, 0);
  } finally {
    await t.close();
  }
});

const urlValue = fc.oneof(
  fc.webUrl({ validSchemes: ["http", "https"] }),
  fc.webUrl({ authoritySettings: { withIPv4: true, withIPv6: true, withUserInfo: true } }),
  fc.constantFrom("http://127.0.0.1/", "file:///etc/passwd", "https://example.com", ""),
  fc.string(),
  fc.jsonValue({ maxDepth: 2 }),
);
const option = <T>(values: readonly T[]) =>
  fc.option(fc.oneof(fc.constantFrom(...values), fc.jsonValue({ maxDepth: 1 })), {
    nil: undefined,
  });

/** A body close to a valid request, and whether the service must capture it. */
const nearValid = fc.record({
  url: fc.option(urlValue, { nil: undefined }),
  deviceType: option(["desktop", "mobile", "Desktop", "tablet"]),
  colorScheme: option(["light", "dark", "Dark", "blue"]),
  forceRefresh: option([true, false, "true", 0]),
  extra: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
}).map((body) => {
  let valid = typeof body.url === "string";
  try {
    if (valid) parseTargetUrl(body.url as string, { allowPrivateNetwork: false });
  } catch {
    valid = false;
  }
  const fits = (v: unknown, allowed: unknown[]) => v === undefined || allowed.includes(v);
  valid &&= fits(body.deviceType, ["desktop", "mobile"]) &&
    fits(body.colorScheme, ["light", "dark"]) && fits(body.forceRefresh, [true, false]);
  return { body, valid };
});

Deno.test("near-valid bodies are captured exactly when they are valid", async () => {
  const t = await createCaptureApp();
  try {
    await fc.assert(
      fc.asyncProperty(nearValid, async ({ body, valid }) => {
        const status = await expectRefusal(t, JSON.stringify(body), "application/json", valid);
        assert.equal(status === 200, valid, JSON.stringify(body).slice(0, 200));
      }),
      { numRuns: 400 },
    );
  } finally {
    await t.close();
  }
});

Deno.test("deep nesting, huge numbers and odd encodings in JSON are 4xx, not crashes", async () => {
  const t = await createCaptureApp();
  try {
    const json = "application/json";
    const deep = 30_000;
    const cases: [string | Uint8Array<ArrayBuffer>, number][] = [
      ["[".repeat(60_000), 400], // unclosed: malformed, under the 64 KiB limit
      [`{"url":${"[".repeat(deep)}${"]".repeat(deep)}}`, 400],
      [`${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`, 400],
      ['{"url":"https://example.com","forceRefresh":1e999}', 400],
      ['{"url":"https://example.com","deviceType":"\\ud800"}', 400],
      ['{"url":"https://exa\\u0000mple.com"}', 400],
      ['\ufeff{"url":"http://127.0.0.1"}', 400],
      ['{"url":"http://127.0.0.1","url":"https://example.com"}', 200], // last key wins
      ['{"url":"https://example.com","__proto__":{"forceRefresh":"x"}}', 200],
      [new Uint8Array([0x7b, 0x22, 0x75, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), 400],
      // Invalid UTF-8 inside the URL: refused, not repaired into a URL nobody sent.
      [bytes('{"url":"https://example.com/', [0xff, 0xc3], '"}'), 400],
      [bytes('{"url":"https://example.com/', [0xed, 0xa0, 0x80], '"}'), 400], // a lone surrogate
      [bytes('{"url":"https://example.com/', [0xc0, 0xaf], '"}'), 400], // overlong "/"
      [new TextEncoder().encode('{"url":"https://example.com"}'), 200],
    ];
    for (const [body, expected] of cases) {
      const status = await expectRefusal(t, body, json, expected === 200);
      assert.equal(status, expected, String(body).slice(0, 80));
    }
    const health = await t.app.request("/healthz");
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    await t.close();
  }
});
