/**
 * A capture job survives the death of an instance in the middle of it: main.ts as a child
 * process on real Chromium, SIGKILLed while some items are done and some running. On Deno KV (a
 * file) the instance is restarted on the same file; on Redis (through the Upstash gateway) a
 * second instance sharing it finishes the job alone. Either way every item ends done, with one
 * result each. How long the recovery took is printed, never asserted: it follows the queues'
 * redelivery (Deno KV hands a killed process's messages out again as soon as the file is
 * reopened, and the worker looks again once the dead run's 20 s claim lapses; Redis waits out its
 * 30 s lease) and the machine's load.
 */
import assert from "node:assert/strict";
import type { JobView } from "../../lib/jobs/views.ts";
import {
  finished,
  itemBytes,
  type ItemLine,
  itemLines,
  JOB_SERVICE_ENV,
  killInstance,
  serveDistinctPages,
  submitJob,
  untilJob,
} from "../../testing/job_runs.ts";
import { startRedisServer } from "../../testing/redis_server.ts";
import { type ServiceProcess, startService } from "../../testing/service_process.ts";
import { startUpstashGateway } from "../../testing/upstash_gateway.ts";

// Enough items that the kill lands mid-job at two captures at a time, few enough for the suite.
const ITEMS = 12;
// The bound only turns a hang into a failure: redelivery takes up to a minute, then the captures.
const JOB_TIMEOUT_MS = 240_000;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];

/** Waits until the job has items done and others running, as seen by `base`. */
async function untilMidJob(base: string, id: string, enough = (_: JobView) => true) {
  return await untilJob(
    base,
    id,
    (view) => view.counts.done >= 1 && view.counts.running >= 1 && enough(view),
    { what: "some items done and some running", timeoutMs: JOB_TIMEOUT_MS, intervalMs: 50 },
  );
}

/** Every item done with exactly one result whose bytes are served; no item failed. */
async function assertEveryItemOnce(base: string, view: JobView, lines: ItemLine[]) {
  assert.equal(view.status, "done");
  assert.deepEqual(view.counts, { queued: 0, running: 0, done: ITEMS, failed: 0, cancelled: 0 });
  assert.deepEqual(view.items.map((item) => item.index), [...Array(ITEMS).keys()]);
  for (const item of view.items) {
    assert.equal(item.status, "done", `item ${item.index}`);
    assert.ok(item.result, `item ${item.index} has its result`);
    const got = await itemBytes(base, view.id, item.index);
    assert.equal(got.status, 200, `item ${item.index}'s bytes`);
    assert.equal(got.contentType, "image/png");
    assert.deepEqual([...got.bytes.subarray(0, 4)], PNG_SIGNATURE);
    assert.equal(got.bytes.byteLength, item.result.bytes);
  }
  // A run whose result stood logs `applied`; no item may have two such runs.
  for (let n = 0; n < ITEMS; n++) {
    const applied = lines.filter((line) => line.item === n && line.applied).length;
    assert.ok(applied <= 1, `item ${n} finished by ${applied} runs`);
  }
}

function report(backend: string, startedAt: number, view: JobView, lines: ItemLine[]) {
  const retried = view.items.filter((item) => item.tries > 1);
  console.log(
    `${backend}: ${ITEMS} items done ${((performance.now() - startedAt) / 1000).toFixed(1)} s ` +
      `after submission; tries > 1: ${
        retried.map((item) => `item ${item.index} (${item.tries})`).join(", ") || "none"
      }; runs whose result did not stand: ${lines.filter((line) => !line.applied).length}`,
  );
}

Deno.test("Deno KV: a job finishes every item once after its instance is killed and restarted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "shotline_jobs_fault_" });
  await using pages = serveDistinctPages();
  const env = { ...JOB_SERVICE_ENV, KV_PATH: `${dir}/kv.sqlite3` };
  const instances: ServiceProcess[] = [];
  try {
    const first = await startService(env);
    instances.push(first);
    const urls = Array.from({ length: ITEMS }, (_, n) => pages.url("kv", n));
    const startedAt = performance.now();
    const id = await submitJob(first.base, urls);
    await untilMidJob(first.base, id);
    await killInstance(first);

    const second = await startService(env);
    instances.push(second);
    const view = await untilJob(second.base, id, finished, {
      what: "the job to finish after the restart",
      timeoutMs: JOB_TIMEOUT_MS,
    });
    const lines = [...itemLines(first, id), ...itemLines(second, id)];
    report("Deno KV, killed and restarted", startedAt, view, lines);
    await assertEveryItemOnce(second.base, view, lines);
  } finally {
    for (const instance of instances) await instance.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Redis: when one of two instances is killed mid-job, the other finishes every item once", async () => {
  await using redis = await startRedisServer();
  const gateway = startUpstashGateway({ redisPort: redis.port });
  await using pages = serveDistinctPages();
  const env = {
    ...JOB_SERVICE_ENV,
    UPSTASH_REDIS_REST_URL: gateway.url,
    UPSTASH_REDIS_REST_TOKEN: gateway.token,
  };
  const instances: ServiceProcess[] = [];
  try {
    const doomed = await startService(env);
    instances.push(doomed);
    const survivor = await startService(env);
    instances.push(survivor);
    const urls = Array.from({ length: ITEMS }, (_, n) => pages.url("redis", n));
    const startedAt = performance.now();
    const id = await submitJob(doomed.base, urls);
    // More running than the survivor's two slots: the doomed instance holds one at least.
    await untilMidJob(
      survivor.base,
      id,
      (view) => view.counts.running >= 3 && itemLines(doomed, id).length >= 1,
    );
    await killInstance(doomed);

    const view = await untilJob(survivor.base, id, finished, {
      what: "the survivor to finish the job",
      timeoutMs: JOB_TIMEOUT_MS,
    });
    const lines = [...itemLines(doomed, id), ...itemLines(survivor, id)];
    report("Redis, one of two instances killed", startedAt, view, lines);
    await assertEveryItemOnce(survivor.base, view, lines);
  } finally {
    for (const instance of instances) await instance.stop();
    await gateway.close();
  }
});
