import assert from "node:assert/strict";
import { createTestApp, manualClock } from "../../testing/app.ts";
import { MAX_KEPT_CAPTURE_BYTES } from "../../lib/capture/links.ts";
import { createObjectStorage } from "../../lib/storage/open.ts";
import { ObjectNotFound, ObjectTooLarge } from "../../lib/storage/types.ts";

const BASE = "http://localhost";

/** A test app and the object storage its config gives (no S3: the store spill), on one store. */
async function appWithSpill() {
  const clock = manualClock();
  const t = await createTestApp({ deps: { clock } });
  const storage = createObjectStorage({ ...t.deps, clock });
  return {
    ...t,
    clock,
    storage,
    async [Symbol.asyncDispose]() {
      await storage.close();
      await t.close();
    },
  };
}

/** Distinct bytes, so a range that is off by one shows. */
function ramp(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (i * 7 + 3) % 256);
}

Deno.test("without S3 the spill keeps the bytes and GET /api/captures/{id} serves them", async () => {
  await using t = await appWithSpill();
  assert.equal(t.storage.kind, "store");
  await t.storage.check();
  assert.equal(t.log.lines.find((l) => l.msg === "object storage")?.kind, "store");

  const bytes = ramp(3 * 1024 * 1024);
  await t.storage.put("jobs/42/page.png", bytes, {
    contentType: "image/png",
    contentDisposition: 'attachment; filename="example.com.png"',
  });
  const url = await t.storage.urlFor("jobs/42/page.png", { expiresInSeconds: 600, baseUrl: BASE });
  // The URL is the link's random id, never the caller's (guessable) key.
  assert.match(url, /^http:\/\/localhost\/api\/captures\/[A-Za-z0-9_-]{24}$/);
  assert.ok(!url.includes("42"));

  const res = await t.app.request(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  assert.equal(res.headers.get("content-disposition"), 'inline; filename="example.com.png"');
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);

  const part = await t.app.request(url, { headers: { Range: "bytes=100-199" } });
  assert.equal(part.status, 206);
  assert.deepEqual(new Uint8Array(await part.arrayBuffer()), bytes.subarray(100, 200));

  const got = await t.storage.get("jobs/42/page.png");
  assert.equal(got?.contentType, "image/png");
  assert.deepEqual(got?.bytes, bytes);
});

Deno.test("a replaced key gets a new link and its old link ends; delete ends the new one", async () => {
  await using t = await appWithSpill();
  const options = { expiresInSeconds: 600, baseUrl: BASE };
  await t.storage.put("r.txt", new TextEncoder().encode("first"), { contentType: "text/plain" });
  const first = await t.storage.urlFor("r.txt", options);
  await t.storage.put("r.txt", new TextEncoder().encode("second"), { contentType: "text/plain" });
  const second = await t.storage.urlFor("r.txt", options);
  assert.notEqual(first, second);

  const old = await t.app.request(first);
  assert.equal(old.status, 404);
  await old.body?.cancel();
  const current = await t.app.request(second);
  assert.equal(current.status, 200);
  assert.equal(current.headers.get("content-type"), "text/plain");
  // Named after the key's last segment when no Content-Disposition was given.
  assert.equal(current.headers.get("content-disposition"), 'inline; filename="r.txt"');
  assert.equal(await current.text(), "second");

  await t.storage.delete("r.txt");
  const gone = await t.app.request(second);
  assert.equal(gone.status, 404);
  await gone.body?.cancel();
  assert.equal(await t.storage.get("r.txt"), null);
  await assert.rejects(t.storage.urlFor("r.txt", options), ObjectNotFound);
  await t.storage.delete("r.txt");
});

Deno.test("spilled objects live the longer of CAPTURE_LINK_TTL_SECONDS and JOB_TTL_SECONDS", async () => {
  await using t = await appWithSpill();
  await t.storage.put("a.png", ramp(10), { contentType: "image/png" });
  const url = await t.storage.urlFor("a.png", { expiresInSeconds: 60, baseUrl: BASE });
  const { CAPTURE_LINK_TTL_SECONDS, JOB_TTL_SECONDS } = t.deps.config;
  t.clock.advance(Math.max(CAPTURE_LINK_TTL_SECONDS, JOB_TTL_SECONDS) * 1000 - 1);
  const before = await t.app.request(url);
  assert.equal(before.status, 200);
  await before.body?.cancel();
  t.clock.advance(1);
  const after = await t.app.request(url);
  assert.equal(after.status, 404);
  await after.body?.cancel();
  assert.equal(await t.storage.get("a.png"), null);
});

Deno.test("the spill refuses an object past the capture link bound with ObjectTooLarge", async () => {
  await using t = await appWithSpill();
  const error = await t.storage.put(
    "big.png",
    new Uint8Array(MAX_KEPT_CAPTURE_BYTES + 1),
    { contentType: "image/png" },
  ).then(() => null, (e) => e);
  assert.ok(error instanceof ObjectTooLarge);
  assert.equal(error.maxBytes, 24 * 1024 * 1024);
  assert.equal(await t.storage.get("big.png"), null);
});
