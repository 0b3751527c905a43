/**
 * One contract suite, run against every Store backend: Deno KV in memory, Deno KV on a file, and
 * Upstash Redis through the REST gateway fixture in front of a real redis-server.
 *
 * Expiry is asserted through the injected clock on every backend: both store `expiresAt` with the
 * value and compare it with the clock on read. (Redis's own PX runs on server time and only
 * reclaims memory; tests/upstash_redis_test.ts checks that every key carries one.)
 */
import assert from "node:assert/strict";
import type { StoredBlob, WindowVerdict } from "../../lib/store/store.ts";
import { noise, STORE_BACKENDS, storeClock } from "../../testing/store_backends.ts";

const MiB = 1024 * 1024;

/** A verdict without the counted hit's handle (its id differs per backend). */
function counted({ hit: _, ...verdict }: WindowVerdict): Omit<WindowVerdict, "hit"> {
  return verdict;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A blob whose every byte is `fill`, with a size that tells the versions apart too. */
function versionBlob(fill: number): StoredBlob {
  return { bytes: new Uint8Array(2.5 * MiB + fill * 1000).fill(fill), meta: { fill } };
}

/** Chunks are >= 60 KB on every backend, so a byte per KiB catches any mix of two versions. */
function isIntact(blob: StoredBlob): boolean {
  const fill = blob.meta.fill as number;
  const { bytes } = blob;
  if (bytes.byteLength !== 2.5 * MiB + fill * 1000 || bytes[bytes.length - 1] !== fill) {
    return false;
  }
  for (let i = 0; i < bytes.length; i += 1024) if (bytes[i] !== fill) return false;
  return true;
}

for (const backend of STORE_BACKENDS) {
  Deno.test(`store contract on ${backend.name}`, async (t) => {
    const clock = storeClock();
    await using opened = await backend.open(clock);
    const { store } = opened;

    await t.step("values round-trip as JSON and expire by the injected clock", async () => {
      assert.equal(await store.getValue(["values", "missing"]), null);
      const post = { text: "héllo ✓ \u{1F600}", n: [1, 2.5], nested: { ok: true } };
      await store.setValue(["values", "post", "1"], post, 60_000);
      assert.deepEqual(await store.getValue(["values", "post", "1"]), post);
      clock.advance(59_999);
      assert.deepEqual(await store.getValue(["values", "post", "1"]), post);
      clock.advance(1);
      assert.equal(await store.getValue(["values", "post", "1"]), null);
      await store.setValue(["values", "post", "1"], "second", 5000);
      assert.equal(await store.getValue(["values", "post", "1"]), "second");
    });

    await t.step("compare-and-set: one of two racing writers wins, expiry as values", async () => {
      const key = ["values", "cas", "1"];
      const empty = await store.getVersioned<{ n: number }>(key);
      assert.deepEqual(empty, { value: null, version: empty.version });
      assert.equal(await store.setValueIfVersion(key, { n: 1 }, empty.version, 60_000), true);
      // The same stale version again: someone (we) wrote since.
      assert.equal(await store.setValueIfVersion(key, { n: 9 }, empty.version, 60_000), false);
      const first = await store.getVersioned<{ n: number }>(key);
      assert.deepEqual(first.value, { n: 1 });
      assert.notEqual(first.version, null);
      assert.deepEqual(await store.getValue(key), { n: 1 });
      // Two writers read the same version; exactly one of them sets.
      const wins = await Promise.all(
        [2, 3].map((n) => store.setValueIfVersion(key, { n }, first.version, 60_000)),
      );
      assert.deepEqual(wins.toSorted(), [false, true]);
      const after = await store.getVersioned<{ n: number }>(key);
      assert.equal(after.value!.n, wins[0] ? 2 : 3);
      // A plain setValue moves the version on too.
      await store.setValue(key, { n: 4 }, 60_000);
      assert.equal(await store.setValueIfVersion(key, { n: 5 }, after.version, 60_000), false);
      // Expired: read as no value, and still written over only with the version it has.
      clock.advance(60_001);
      const expired = await store.getVersioned<{ n: number }>(key);
      assert.equal(expired.value, null);
      assert.equal(await store.setValueIfVersion(key, { n: 6 }, expired.version, 1000), true);
      assert.deepEqual(await store.getValue(key), { n: 6 });
    });

    await t.step("blobs of 0 bytes, 1 byte and 3 MB round-trip byte for byte", async () => {
      for (const size of [0, 1, 3 * MiB]) {
        const bytes = noise(size, size + 7);
        const meta = { contentType: "image/png", size };
        await store.setBlob(["blobs", String(size)], { bytes, meta }, 60_000);
        const got = await store.getBlob(["blobs", String(size)]);
        assert.ok(got, `blob of ${size} bytes is readable`);
        assert.equal(got.bytes.byteLength, size);
        assert.ok(sameBytes(got.bytes, bytes), `blob of ${size} bytes is intact`);
        assert.deepEqual(got.meta, meta);
      }
      assert.equal(await store.getBlob(["blobs", "missing"]), null);
      clock.advance(60_000);
      assert.equal(await store.getBlob(["blobs", "1"]), null);
      assert.equal(await store.getBlob(["blobs", String(3 * MiB)]), null);
    });

    await t.step("a replaced blob reads as the new one with the new meta", async () => {
      await store.setBlob(["replace", "k"], { bytes: noise(10, 1), meta: { v: 1 } }, 60_000);
      await store.setBlob(["replace", "k"], { bytes: noise(20, 2), meta: { v: 2 } }, 60_000);
      const got = await store.getBlob(["replace", "k"]);
      assert.ok(got);
      assert.deepEqual(got.meta, { v: 2 });
      assert.ok(sameBytes(got.bytes, noise(20, 2)));
    });

    await t.step("readers never see a torn blob while a writer replaces it", async () => {
      const key = ["torn", "page"];
      await store.setBlob(key, versionBlob(1), 60_000);
      let writing = true;
      const writer = (async () => {
        try {
          for (let fill = 2; fill <= 9; fill++) await store.setBlob(key, versionBlob(fill), 60_000);
        } finally {
          writing = false;
        }
      })();
      const seen = { intact: 0, torn: 0, missing: 0 };
      const reader = async () => {
        while (writing) {
          const blob = await store.getBlob(key);
          if (!blob) seen.missing++;
          else if (isIntact(blob)) seen.intact++;
          else seen.torn++;
        }
      };
      await Promise.all([writer, reader(), reader()]);
      assert.equal(seen.torn, 0, `torn reads: ${JSON.stringify(seen)}`);
      assert.equal(seen.missing, 0, `reads that missed a stored blob: ${JSON.stringify(seen)}`);
      assert.ok(seen.intact > 0);
      const last = await store.getBlob(key);
      assert.ok(last && isIntact(last));
      assert.equal(last.meta.fill, 9);
    });

    await t.step("deleteBlobs removes a key prefix and counts only live blobs", async () => {
      const blob = { bytes: noise(3, 3), meta: {} };
      await store.setBlob(["purge", "u1", "desktop"], blob, 60_000);
      await store.setBlob(["purge", "u1", "mobile"], blob, 60_000);
      await store.setBlob(["purge", "u1", "stale"], blob, 1000);
      await store.setBlob(["purge", "u10", "desktop"], blob, 60_000);
      await store.setBlob(["other", "u1", "desktop"], blob, 60_000);
      clock.advance(1000);

      assert.equal(await store.deleteBlobs(["purge", "u1"]), 2);
      assert.equal(await store.getBlob(["purge", "u1", "desktop"]), null);
      assert.equal(await store.getBlob(["purge", "u1", "mobile"]), null);
      assert.ok(await store.getBlob(["purge", "u10", "desktop"]), "a sibling prefix survives");
      assert.equal(await store.deleteBlobs(["purge", "u1"]), 0);
      assert.equal(await store.deleteBlobs(["purge"]), 1);
      assert.equal(await store.deleteBlobs(["purge"]), 0);
      assert.ok(await store.getBlob(["other", "u1", "desktop"]), "other prefixes survive");
      assert.equal(await store.deleteBlobs(["nothing", "here"]), 0);
    });

    await t.step("hitWindow admits exactly `limit` of 40 concurrent hits", async () => {
      const now = clock.now();
      const verdicts = await Promise.all(
        Array.from({ length: 40 }, () => store.hitWindow(["rate", "203.0.113.7"], 20, 60_000)),
      );
      const allowed = verdicts.filter((v) => v.allowed);
      assert.equal(allowed.length, 20);
      assert.deepEqual(
        allowed.map((v) => v.remaining).sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i),
      );
      for (const verdict of verdicts) {
        assert.equal(verdict.limit, 20);
        assert.equal(verdict.resetAt, now + 60_000);
        if (!verdict.allowed) assert.equal(verdict.remaining, 0);
      }
    });

    await t.step("the window slides with the clock and Reset follows the oldest hit", async () => {
      // Windows stay at 60 s: Redis also expires the log by real time, which must not interfere.
      const key = ["rate", "slide"];
      const t0 = clock.now();
      const hit = async () => counted(await store.hitWindow(key, 3, 60_000));
      const verdict = (allowed: boolean, remaining: number, resetAt: number) => ({
        allowed,
        limit: 3,
        remaining,
        resetAt,
      });
      assert.deepEqual(await hit(), verdict(true, 2, t0 + 60_000));
      clock.advance(24_000);
      assert.deepEqual(await hit(), verdict(true, 1, t0 + 60_000));
      clock.advance(24_000);
      assert.deepEqual(await hit(), verdict(true, 0, t0 + 60_000));
      clock.advance(11_999);
      assert.deepEqual(await hit(), verdict(false, 0, t0 + 60_000));
      clock.advance(1); // t0 + 60 s: the first hit has left the window
      assert.deepEqual(await hit(), verdict(true, 0, t0 + 84_000));
      assert.deepEqual(await hit(), verdict(false, 0, t0 + 84_000));
      const other = await store.hitWindow(["rate", "other"], 3, 60_000);
      assert.deepEqual(counted(other), verdict(true, 2, clock.now() + 60_000));
    });

    await t.step("refundWindow takes back one counted hit; never below zero", async () => {
      const key = ["rate", "refund"];
      const hit = () => store.hitWindow(key, 2, 60_000);
      const first = await hit();
      const second = await hit();
      assert.equal((await hit()).allowed, false);
      assert.equal((await hit()).hit, undefined, "a refused hit has nothing to take back");
      await store.refundWindow(key, second.hit!, 60_000);
      const again = await hit();
      assert.deepEqual([again.allowed, again.remaining], [true, 0]);
      // Both hits back, and one more than was counted: the window is empty, not below it.
      await store.refundWindow(key, first.hit!, 60_000);
      await store.refundWindow(key, again.hit!, 60_000);
      await store.refundWindow(key, again.hit!, 60_000);
      assert.deepEqual([(await hit()).remaining, (await hit()).remaining], [1, 0]);
      assert.equal((await hit()).allowed, false);
    });

    await t.step("a hit that left the window takes no later hit back", async () => {
      const key = ["rate", "refund-late"];
      const old = await store.hitWindow(key, 1, 60_000);
      clock.advance(60_000);
      const fresh = await store.hitWindow(key, 1, 60_000);
      assert.equal(fresh.allowed, true);
      await store.refundWindow(key, old.hit!, 60_000);
      assert.equal((await store.hitWindow(key, 1, 60_000)).allowed, false);
    });
  });
}
