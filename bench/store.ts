/**
 * Cache-hit latency of the two Store backends, side by side in one run:
 * Deno KV on a local file vs Upstash Redis over REST (the test gateway in front of a loopback
 * redis-server). Prints a Markdown table of medians and p95.
 *
 *   deno run -A bench/store.ts
 *
 * The gateway adds a hop (HTTP + JSON in Deno, then RESP to Redis) that a real Upstash endpoint
 * replaces with a network round trip, usually 1-30 ms inside a region: read the Upstash column as
 * the client-side cost, not as production latency.
 */
import { createKvStore } from "../lib/store/deno_kv.ts";
import type { Store } from "../lib/store/store.ts";
import { SYSTEM_CLOCK } from "../lib/clock.ts";
import { createUpstashStore } from "../lib/store/upstash_redis.ts";
import { startRedisServer } from "../testing/redis_server.ts";
import { startUpstashGateway } from "../testing/upstash_gateway.ts";
import { median, quantile } from "./support/measure.ts";

// A full-page PNG capture is typically 0.5-2 MB (bench/README.md); random bytes do not compress.
const BLOB_BYTES = 1_000_000;
const WARMUP = 10;
const VALUE_RUNS = 400;
const BLOB_RUNS = 80;

interface Row {
  backend: string;
  value: number[];
  blob: number[];
}

function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return bytes;
}

/** Times each backend's `work` alternately, so both see the same machine load. */
async function timeAlternating(
  runs: number,
  works: (() => Promise<unknown>)[],
): Promise<number[][]> {
  const samples = works.map(() => [] as number[]);
  for (let i = -WARMUP; i < runs; i++) {
    for (const [index, work] of works.entries()) {
      const start = performance.now();
      await work();
      if (i >= 0) samples[index].push(performance.now() - start);
    }
  }
  return samples;
}

async function measure(backends: [string, Store][]): Promise<Row[]> {
  const post = { id: "1234567890", text: "a cached post lookup ".repeat(40), likes: 42 };
  const bytes = randomBytes(BLOB_BYTES);
  for (const [, store] of backends) {
    await store.setValue(["bench", "post"], post, 3_600_000);
    await store.setBlob(["bench", "capture", "desktop"], {
      bytes,
      meta: { strategy: "chromium-local", capturedAt: Date.now() },
    }, 3_600_000);
  }
  const values = await timeAlternating(
    VALUE_RUNS,
    backends.map(([, store]) => async () => {
      if (!await store.getValue(["bench", "post"])) throw new Error("value miss");
    }),
  );
  const blobs = await timeAlternating(
    BLOB_RUNS,
    backends.map(([, store]) => async () => {
      const got = await store.getBlob(["bench", "capture", "desktop"]);
      if (got?.bytes.byteLength !== BLOB_BYTES) throw new Error("blob miss");
    }),
  );
  return backends.map(([backend], i) => ({ backend, value: values[i], blob: blobs[i] }));
}

async function main() {
  const dir = await Deno.makeTempDir({ prefix: "shotline_bench_" });
  await using redis = await startRedisServer();
  await using gateway = startUpstashGateway({ redisPort: redis.port });
  const kv = createKvStore(await Deno.openKv(`${dir}/bench.sqlite3`), SYSTEM_CLOCK);
  const upstash = createUpstashStore({
    url: gateway.url,
    token: gateway.token,
    clock: SYSTEM_CLOCK,
  });
  try {
    const rows = await measure([
      ["Deno KV (SQLite file)", kv],
      ["Upstash Redis via REST gateway", upstash],
    ]);
    const ms = (n: number) => n.toFixed(2);
    const lines = [
      `Cache-hit latency, ${BLOB_RUNS} blob reads / ${VALUE_RUNS} value reads per backend, ` +
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores.`,
      "",
      "| Backend | getValue median (ms) | getValue p95 (ms) | getBlob 1 MB median (ms) | getBlob 1 MB p95 (ms) |",
      "|---|---:|---:|---:|---:|",
      ...rows.map((r) =>
        `| ${r.backend} | ${ms(median(r.value))} | ${ms(quantile(r.value, 0.95))} | ` +
        `${ms(median(r.blob))} | ${ms(quantile(r.blob, 0.95))} |`
      ),
      "",
      `Upstash / KV median ratio: getValue ${
        (median(rows[1].value) / median(rows[0].value)).toFixed(1)
      }x, getBlob ${(median(rows[1].blob) / median(rows[0].blob)).toFixed(1)}x.`,
    ];
    console.log(lines.join("\n"));
  } finally {
    await kv.close();
    await upstash.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main();
