import assert from "node:assert/strict";
import { manualClock } from "../../testing/app.ts";
import { startS3Server } from "../../testing/s3_server.ts";
import { parseConfig } from "../../lib/config.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { createKvStore } from "../../lib/store/deno_kv.ts";
import { createObjectStorage, s3SettingsOf } from "../../lib/storage/open.ts";
import { createS3Storage } from "../../lib/storage/s3.ts";
import { InvalidObjectKey, ObjectStorageFailed } from "../../lib/storage/types.ts";
import type { Clock } from "../../lib/clock.ts";

const BASE = "http://localhost:8000";

/** The S3 storage of a service configured with `env` (plus the server's S3_* variables). */
async function s3Storage(env: Record<string, string>, clock: Clock = { now: () => Date.now() }) {
  const kv = await Deno.openKv(":memory:");
  const log = createMemoryLogger();
  const storage = createObjectStorage({
    config: parseConfig(env),
    store: createKvStore(kv, clock),
    clock,
    log,
  });
  return {
    storage,
    log,
    async [Symbol.asyncDispose]() {
      await storage.close();
      kv.close();
    },
  };
}

Deno.test("a 10 MB object round-trips byte for byte with its content type, then is deleted", async () => {
  await using server = await startS3Server();
  await using s3 = await s3Storage(server.env());
  assert.equal(s3.storage.kind, "s3");
  await s3.storage.check();
  const bytes = new Uint8Array(10 * 1024 * 1024);
  for (let i = 0; i < bytes.length; i += 65536) {
    crypto.getRandomValues(bytes.subarray(i, i + 65536));
  }
  await s3.storage.put("jobs/one/page.png", bytes, {
    contentType: "image/png",
    contentDisposition: 'attachment; filename="page.png"',
  });
  const got = await s3.storage.get("jobs/one/page.png");
  assert.ok(got);
  assert.equal(got.contentType, "image/png");
  assert.equal(got.bytes.byteLength, bytes.byteLength);
  assert.deepEqual(got.bytes, bytes);

  await s3.storage.delete("jobs/one/page.png");
  assert.equal(await s3.storage.get("jobs/one/page.png"), null);
  // Deleting what is not there is not an error, as on S3.
  await s3.storage.delete("jobs/one/page.png");
});

Deno.test("a presigned URL serves the object to a plain fetch; tampered, it is refused", async () => {
  await using server = await startS3Server();
  await using s3 = await s3Storage(server.env());
  const bytes = new TextEncoder().encode("%PDF-1.7 a result");
  await s3.storage.put("r/doc one.pdf", bytes, {
    contentType: "application/pdf",
    contentDisposition: 'attachment; filename="doc one.pdf"',
  });
  const url = await s3.storage.urlFor("r/doc one.pdf", { expiresInSeconds: 300, baseUrl: BASE });
  const parsed = new URL(url);
  assert.equal(parsed.origin, server.endpoint);
  assert.equal(parsed.pathname, `/${server.bucket}/r/doc%20one.pdf`);
  assert.equal(parsed.searchParams.get("X-Amz-Expires"), "300");
  assert.ok(!url.includes(server.secretAccessKey.toLowerCase()), "no secret in the URL");

  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/pdf");
  assert.equal(res.headers.get("content-disposition"), 'attachment; filename="doc one.pdf"');
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);

  const signature = parsed.searchParams.get("X-Amz-Signature")!;
  const last = signature.at(-1) === "0" ? "1" : "0";
  parsed.searchParams.set("X-Amz-Signature", signature.slice(0, -1) + last);
  const tampered = await fetch(parsed);
  assert.equal(tampered.status, 403);
  assert.match(await tampered.text(), /SignatureDoesNotMatch/);

  // A URL for another key cannot be made from this one: the key is signed too.
  const moved = new URL(url);
  moved.pathname = `/${server.bucket}/r/other.pdf`;
  const other = await fetch(moved);
  assert.equal(other.status, 403);
  await other.body?.cancel();
});

Deno.test("a presigned URL stops working once its expiry has passed", async () => {
  await using server = await startS3Server();
  // Signed two hours ago for 60 s: the server, on real time, sees it expired.
  const clock = manualClock(Date.now() - 2 * 60 * 60 * 1000);
  await using s3 = await s3Storage(server.env(), clock);
  await s3.storage.put("old.png", new Uint8Array([1, 2, 3]), { contentType: "image/png" });
  const expired = await s3.storage.urlFor("old.png", { expiresInSeconds: 60, baseUrl: BASE });
  const res = await fetch(expired);
  assert.equal(res.status, 403);
  assert.match(await res.text(), /Request has expired/);

  // The same clock moved to now signs a URL that works.
  clock.advance(2 * 60 * 60 * 1000);
  const fresh = await fetch(
    await s3.storage.urlFor("old.png", { expiresInSeconds: 60, baseUrl: BASE }),
  );
  assert.equal(fresh.status, 200);
  assert.deepEqual(new Uint8Array(await fresh.arrayBuffer()), new Uint8Array([1, 2, 3]));

  await assert.rejects(
    s3.storage.urlFor("old.png", { expiresInSeconds: 8 * 24 * 3600, baseUrl: BASE }),
    RangeError,
  );
});

Deno.test("S3_PREFIX is put before every key; S3_PUBLIC_BASE_URL gives unsigned URLs", async () => {
  await using server = await startS3Server();
  await using prefixed = await s3Storage(server.env({
    S3_PREFIX: "shotline/results/",
    S3_PUBLIC_BASE_URL: "https://cdn.example.com/files/",
  }));
  await using bare = await s3Storage(server.env());
  await prefixed.storage.put("a b/c.png", new Uint8Array([7]), { contentType: "image/png" });
  const raw = await bare.storage.get("shotline/results/a b/c.png");
  assert.deepEqual(raw?.bytes, new Uint8Array([7]));
  assert.equal(await bare.storage.get("a b/c.png"), null);
  assert.deepEqual((await prefixed.storage.get("a b/c.png"))?.bytes, new Uint8Array([7]));

  const url = await prefixed.storage.urlFor("a b/c.png", { expiresInSeconds: 60, baseUrl: BASE });
  assert.equal(url, "https://cdn.example.com/files/shotline/results/a%20b/c.png");
  await prefixed.storage.delete("a b/c.png");
  assert.equal(await bare.storage.get("shotline/results/a b/c.png"), null);
});

Deno.test("a wrong secret key is a clear error that names the variable, never the secret", async () => {
  await using server = await startS3Server();
  const secret = "not-the-secret-0123456789abcdef";
  await using s3 = await s3Storage(server.env({ S3_SECRET_ACCESS_KEY: secret }));
  const put = await s3.storage.put("x.png", new Uint8Array([1]), { contentType: "image/png" })
    .then(() => null, (error) => error);
  assert.ok(put instanceof ObjectStorageFailed);
  assert.equal(put.operation, "put");
  assert.equal(put.code, "SignatureDoesNotMatch");
  assert.match(put.message, /S3_SECRET_ACCESS_KEY/);
  assert.ok(!put.message.includes(secret));

  const check = await s3.storage.check().then(() => null, (error) => error);
  assert.ok(check instanceof ObjectStorageFailed);
  assert.equal(check.code, "Forbidden");

  await using unknownId = await s3Storage(server.env({ S3_ACCESS_KEY_ID: "NOBODY" }));
  const get = await unknownId.storage.get("x.png").then(() => null, (error) => error);
  assert.ok(get instanceof ObjectStorageFailed);
  assert.equal(get.code, "InvalidAccessKeyId");
  assert.match(get.message, /S3_ACCESS_KEY_ID/);
  // The startup line says which storage, with no credential in it.
  const line = s3.log.lines.find((l) => l.msg === "object storage");
  assert.equal(line?.kind, "s3");
  assert.ok(!JSON.stringify(s3.log.lines).includes(secret));
});

Deno.test("a missing bucket and a silent endpoint are typed failures within the bound", async () => {
  await using server = await startS3Server();
  await using s3 = await s3Storage(server.env({ S3_BUCKET: "no-such-bucket" }));
  const check = await s3.storage.check().then(() => null, (error) => error);
  assert.ok(check instanceof ObjectStorageFailed);
  assert.equal(check.code, "NotFound");

  // Accepts connections, never answers.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  const settings = s3SettingsOf(parseConfig({
    ...server.env(),
    S3_ENDPOINT: `http://127.0.0.1:${silent.addr.port}`,
  }))!;
  const stuck = createS3Storage({ settings, clock: { now: () => Date.now() }, timeoutMs: 300 });
  try {
    const started = performance.now();
    const error = await stuck.get("x.png").then(() => null, (e) => e);
    assert.ok(error instanceof ObjectStorageFailed);
    assert.equal(error.code, "TimeoutError");
    assert.ok(performance.now() - started < 5_000);
  } finally {
    await stuck.close();
    silent.close();
    await accepting.catch(() => {});
    for (const conn of held) conn.close();
  }
});

Deno.test("keys no backend stores as they are are refused before any request", async () => {
  await using server = await startS3Server();
  await using s3 = await s3Storage(server.env());
  for (const key of ["", "/abs.png", "a\nb", "k".repeat(1025)]) {
    await assert.rejects(s3.storage.get(key), InvalidObjectKey, JSON.stringify(key));
  }
});
