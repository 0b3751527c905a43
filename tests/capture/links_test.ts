import assert from "node:assert/strict";
import {
  CAPTURE_URI_TEMPLATE,
  captureIdOf,
  CaptureTooLargeToKeep,
  createCaptureLinks,
  MAX_KEPT_CAPTURE_BYTES,
} from "../../lib/capture/links.ts";
import type { Store } from "../../lib/store/store.ts";
import { noise, STORE_BACKENDS, storeClock } from "../../testing/store_backends.ts";

const HOUR_MS = 60 * 60 * 1000;
const BASE = "http://127.0.0.1:8000";

for (const backend of STORE_BACKENDS) {
  Deno.test(`capture links on ${backend.name}`, async (t) => {
    const clock = storeClock();
    await using opened = await backend.open(clock);
    const links = createCaptureLinks({ store: opened.store, clock, ttlMs: HOUR_MS });

    await t.step("a kept capture reads back byte for byte, with its type and name", async () => {
      // Over a megabyte: chunked on both backends.
      const bytes = noise(1_300_000, 7);
      const link = await links.keep(
        { bytes, mediaType: "image/png", name: "example.com.png" },
        `${BASE}/`,
      );
      assert.equal(link.uri, `shotline://captures/${link.id}`);
      assert.equal(link.url, `${BASE}/api/captures/${link.id}`);
      assert.deepEqual(
        { mediaType: link.mediaType, name: link.name, size: link.size },
        { mediaType: "image/png", name: "example.com.png", size: bytes.byteLength },
      );
      assert.equal(link.expiresAt, clock.now() + HOUR_MS);
      const kept = await links.read(link.id);
      assert.ok(kept);
      assert.deepEqual(kept.bytes, bytes);
      assert.equal(kept.mediaType, "image/png");
      assert.equal(kept.name, "example.com.png");
      assert.equal(kept.expiresAt, link.expiresAt);
    });

    await t.step("a link expires by the injected clock", async () => {
      const link = await links.keep(
        { bytes: noise(1000, 1), mediaType: "application/pdf", name: "a.pdf" },
        BASE,
      );
      clock.advance(HOUR_MS - 1);
      assert.ok(await links.read(link.id), "still there a millisecond before");
      clock.advance(1);
      assert.equal(await links.read(link.id), null);
    });

    await t.step("an unknown or malformed id reads as null", async () => {
      const { id } = await links.keep(
        { bytes: noise(10, 2), mediaType: "text/markdown; charset=utf-8", name: "a.md" },
        BASE,
      );
      assert.ok(await links.read(id));
      const unknown = `${id.slice(0, -1)}${id.endsWith("A") ? "B" : "A"}`;
      for (
        const bad of [
          unknown,
          "",
          "x",
          `${id}A`,
          id.slice(1),
          "../" + id.slice(3),
          "a".repeat(5000),
        ]
      ) {
        assert.equal(await links.read(bad), null, JSON.stringify(bad.slice(0, 40)));
      }
    });

    await t.step("forget ends a link at once and leaves the others be", async () => {
      const capture = { bytes: noise(1_300_000, 4), mediaType: "image/png", name: "f.png" };
      const gone = await links.keep(capture, BASE);
      const kept = await links.keep(capture, BASE);
      await links.forget(gone.id);
      assert.equal(await links.read(gone.id), null);
      assert.deepEqual((await links.read(kept.id))?.bytes, capture.bytes);
      // Unknown, malformed or already forgotten ids are no-ops.
      await links.forget(gone.id);
      await links.forget("x");
    });
  });
}

Deno.test("ids are 24 base64url characters, random, never repeated", async () => {
  const clock = storeClock();
  await using opened = await STORE_BACKENDS[0].open(clock);
  const links = createCaptureLinks({ store: opened.store, clock, ttlMs: HOUR_MS });
  const bytes = noise(16, 3);
  const ids = new Set<string>();
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const { id } = await links.keep({ bytes, mediaType: "image/png", name: "a.png" }, BASE);
    assert.match(id, /^[A-Za-z0-9_-]{24}$/);
    ids.add(id);
    for (const char of id) seen.add(char);
  }
  // Same bytes, same name: every keep still gets its own id.
  assert.equal(ids.size, 200);
  // 4800 characters of 144-bit ids use nearly the whole 64-letter alphabet.
  assert.ok(seen.size >= 60, `alphabet seen: ${seen.size}`);
});

Deno.test("a capture past the cache's size bound gets no link", async () => {
  const clock = storeClock();
  await using opened = await STORE_BACKENDS[0].open(clock);
  const links = createCaptureLinks({ store: opened.store, clock, ttlMs: HOUR_MS, maxBytes: 100 });
  assert.ok(await links.keep({ bytes: noise(100, 4), mediaType: "image/png", name: "a" }, BASE));
  await assert.rejects(
    links.keep({ bytes: noise(101, 4), mediaType: "image/png", name: "a" }, BASE),
    (error: unknown) =>
      error instanceof CaptureTooLargeToKeep && error.size === 101 && error.maxBytes === 100,
  );
  assert.equal(MAX_KEPT_CAPTURE_BYTES, 24 * 1024 * 1024);
});

Deno.test("names are made fit for a header; media types must be media types", async () => {
  const clock = storeClock();
  await using opened = await STORE_BACKENDS[0].open(clock);
  const links = createCaptureLinks({ store: opened.store, clock, ttlMs: HOUR_MS });
  const bytes = noise(8, 5);
  const named = await links.keep(
    { bytes, mediaType: "image/png", name: 'a"b/c\\d\r\ne.png' },
    BASE,
  );
  assert.equal(named.name, "a_b_c_d__e.png");
  assert.equal((await links.read(named.id))?.name, "a_b_c_d__e.png");
  assert.equal(
    (await links.keep({ bytes, mediaType: "image/png", name: "" }, BASE)).name,
    "capture",
  );
  await assert.rejects(
    links.keep({ bytes, mediaType: "image/png\r\nX-Evil: 1", name: "a" }, BASE),
    TypeError,
  );
});

Deno.test("a store that fails makes keep and read reject, not answer null", async () => {
  const failing = new Error("store down");
  const store = {
    setBlob: () => Promise.reject(failing),
    getBlob: () => Promise.reject(failing),
  } as unknown as Store;
  const links = createCaptureLinks({ store, clock: storeClock(), ttlMs: HOUR_MS });
  await assert.rejects(
    links.keep({ bytes: noise(8, 6), mediaType: "image/png", name: "a" }, BASE),
    failing,
  );
  await assert.rejects(links.read("A".repeat(24)), failing);
});

Deno.test("captureIdOf reads the id of a capture URI and nothing else", () => {
  const id = "q3Xv9mB2kP0sLr8TnW4yZa1c";
  assert.equal(CAPTURE_URI_TEMPLATE, "shotline://captures/{id}");
  assert.equal(captureIdOf(CAPTURE_URI_TEMPLATE.replace("{id}", id)), id);
  for (
    const uri of [
      `shotline://captures/${id}/`,
      `shotline://captures/${id}?x=1`,
      `shotline://captures/${id.slice(1)}`,
      `https://captures/${id}`,
      `shotline://capture/${id}`,
      `SHOTLINE://captures/${id}x`,
      CAPTURE_URI_TEMPLATE,
      "",
    ]
  ) assert.equal(captureIdOf(uri), null, uri);
});
