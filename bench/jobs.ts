/**
 * Capture jobs on this machine, in one run, against real service processes (main.ts) on the
 * local Chromium and loopback pages:
 *   1. throughput: a 100-item job beside the same number of synchronous captures sent
 *      MAX_CONCURRENT_CAPTURES at a time (distinct URLs, so the cache helps neither);
 *   2. two instances sharing one Redis (the Upstash gateway), a Chromium each: one 100-item job;
 *   3. latency: POST to the first result visible in GET, last item done to the webhook's arrival;
 *   4. fault: SIGKILL half-way through a 50-item job and a restart, on a Deno KV file and on
 *      Redis, beside an undisturbed run;
 *   5. render links: a cached signed GET /api/render beside a cache hit of POST /api/screenshot.
 * Medians where repeated; a Markdown summary table at the end.
 *
 * deno run -A bench/jobs.ts [--runs=N] [--parts=1,2,3,4,5] [--job-concurrency=N]
 *   --runs: throughput runs of each side (default 3); --parts: which parts (default all);
 *   --job-concurrency: JOB_CONCURRENCY of the single instance (default unset: the service's).
 */
import { signRenderLink } from "../lib/http/render_links.ts";
import { JOB_SERVICE_ENV, serveDistinctPages, submitJob } from "../testing/job_runs.ts";
import { jobView, untilJob } from "../testing/job_runs.ts";
import { startRedisServer } from "../testing/redis_server.ts";
import { type ServiceProcess, startService } from "../testing/service_process.ts";
import { startUpstashGateway } from "../testing/upstash_gateway.ts";
import { TEST_WEBHOOK_SECRET, webhookReceiver } from "../testing/webhook_receiver.ts";
import { itemLines } from "../testing/job_runs.ts";
import { loadAverage, median } from "./support/measure.ts";
import {
  type FaultRun,
  pageUrls,
  runJob,
  runKilledJob,
  runSynchronous,
} from "./support/job_runs.ts";

const flag = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag("runs") ?? 3);
const PARTS = new Set((flag("parts") ?? "1,2,3,4,5").split(",").map(Number));
const JOB_CONCURRENCY = flag("job-concurrency");
const JOB_ITEMS = 100;
const FAULT_ITEMS = 50;
const LATENCY_RUNS = 5;
const LATENCY_ITEMS = 4;
const LINK_REQUESTS = 200;
// The service's default: the synchronous client keeps this many captures in flight.
const IN_FLIGHT = 2;
const RENDER_LINK_SECRET = "bench-render-link-secret-0123456789abcdef";

const rows: [string, string, string][] = [];
const row = (measure: string, result: string, goal = "") => {
  rows.push([measure, result, goal]);
  console.log(`- ${measure}: ${result}${goal ? ` (${goal})` : ""}`);
};
const fixed = (n: number, digits = 2) => n.toFixed(digits);

console.log(`Start: ${new Date().toISOString()}, load ${loadAverage()}, ${RUNS} runs.\n`);
await using pages = serveDistinctPages();
const dir = await Deno.makeTempDir({ prefix: "shotline_bench_jobs_" });

/** Parts 1, 3 and 5: one instance on a Deno KV file, webhooks and render links on. */
async function singleInstance() {
  await using receiver = webhookReceiver();
  await using service = await startService({
    ...JOB_SERVICE_ENV,
    KV_PATH: `${dir}/single.sqlite3`,
    WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    RENDER_LINK_SECRET,
    MAX_CONCURRENT_CAPTURES: String(IN_FLIGHT),
    ...(JOB_CONCURRENCY ? { JOB_CONCURRENCY } : {}),
  });
  // Warm the browser and both paths before timing.
  await runSynchronous(service.base, pageUrls(pages, "warm-sync", 4), IN_FLIGHT);
  await runJob(service.base, pageUrls(pages, "warm-job", 4));

  if (PARTS.has(1)) await throughput(service);
  if (PARTS.has(3)) await latency(service.base, receiver);
  if (PARTS.has(5)) {
    console.log("\n5. Render links");
    await renderLinks(service.base);
  }
}

async function throughput(service: ServiceProcess) {
  const { base } = service;
  console.log("\n1. Throughput");
  const job: number[] = [], sync: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const j = await runJob(base, pageUrls(pages, `job-${run}`, JOB_ITEMS));
    const s = await runSynchronous(
      base,
      pageUrls(pages, `sync-${run}`, JOB_ITEMS),
      IN_FLIGHT,
    );
    job.push(j.itemsPerSecond);
    sync.push(s.itemsPerSecond);
    console.log(
      `  run ${run + 1}: job ${fixed(j.itemsPerSecond)} items/s (${j.view.counts.done} done, ` +
        `${fixed(j.seconds, 1)} s), sync ${fixed(s.itemsPerSecond)} captures/s (${s.ok} ok, ` +
        `${fixed(s.seconds, 1)} s); median ms of a job item's run ` +
        `${fixed(median(itemLines(service, j.view.id).map((l) => l.ms)), 0)}, of a synchronous ` +
        `request ${fixed(s.medianMs, 0)}; load ${loadAverage()}`,
    );
  }
  const ratio = median(job) / median(sync);
  row(`${JOB_ITEMS}-item job, items/s (median of ${RUNS})`, fixed(median(job)));
  row(
    `${JOB_ITEMS} synchronous captures, ${IN_FLIGHT} in flight, captures/s (median of ${RUNS})`,
    fixed(median(sync)),
  );
  row(
    `Job / synchronous throughput${JOB_CONCURRENCY ? `, JOB_CONCURRENCY=${JOB_CONCURRENCY}` : ""}`,
    `${fixed(ratio)}x`,
    `goal >= 0.9: ${ratio >= 0.9 ? "met" : "MISSED"}`,
  );
}

async function latency(base: string, receiver: ReturnType<typeof webhookReceiver>) {
  console.log("\n3. Latency");
  const firstResult: number[] = [], webhook: number[] = [];
  for (let run = 0; run < LATENCY_RUNS; run++) {
    const started = performance.now();
    const id = await submitJob(base, pageUrls(pages, `latency-${run}`, LATENCY_ITEMS), {
      webhook: { url: receiver.url("/ok").href },
    });
    await untilJob(base, id, (view) => view.items.some((item) => item.result), {
      what: "a first result",
      timeoutMs: 120_000,
      intervalMs: 10,
    });
    firstResult.push(performance.now() - started);
    const delivery = await untilDelivery(receiver.received, id);
    const view = await jobView(base, id);
    const lastDone = Math.max(...view.items.map((item) => Date.parse(item.finishedAt!)));
    webhook.push(delivery - lastDone);
  }
  row(
    `POST to the first item's result in GET, ${LATENCY_ITEMS}-item job (median of ${LATENCY_RUNS})`,
    `${fixed(median(firstResult), 0)} ms`,
  );
  row(
    `Last item done to the webhook's arrival (median of ${LATENCY_RUNS})`,
    `${fixed(median(webhook), 0)} ms (max ${fixed(Math.max(...webhook), 0)} ms)`,
  );
}

/** When the job.completed event of `id` arrived (epoch ms). */
async function untilDelivery(received: { body: string; at: number }[], id: string) {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const delivery = received.find((d) => d.body.includes(id));
    if (delivery) return delivery.at;
    if (performance.now() > deadline) throw new Error(`no webhook for ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function renderLinks(base: string) {
  const url = pages.url("render-link", 0);
  const link = await signRenderLink(base, { url }, {
    secret: RENDER_LINK_SECRET,
    expiresAt: new Date(Date.now() + 3600_000),
  });
  const post = (accept: string) =>
    fetch(`${base}/api/screenshot`, {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify({ url }),
    });
  const timed = async (request: () => Promise<Response>) => {
    const started = performance.now();
    const response = await request();
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { ms: performance.now() - started, response, bytes };
  };
  // The first GET renders and caches; the POSTs then hit the same entry.
  const first = await timed(() => fetch(link));
  await new Promise((resolve) => setTimeout(resolve, 500)); // the cache write lands
  const json = await (await post("application/json")).json();
  const png = await timed(() => post("image/png"));
  const again = await timed(() => fetch(link));
  console.log(
    `  link ${first.response.status}, POST json cached=${json.cached}, png bytes ` +
      `${png.bytes.byteLength} vs link ${again.bytes.byteLength} ` +
      `(${sameBytes(png.bytes, again.bytes) ? "identical" : "different"})`,
  );
  const link_: number[] = [], png_: number[] = [], json_: number[] = [];
  for (let i = 0; i < LINK_REQUESTS; i++) {
    link_.push((await timed(() => fetch(link))).ms);
    png_.push((await timed(() => post("image/png"))).ms);
    json_.push((await timed(() => post("application/json"))).ms);
  }
  const ratio = median(link_) / median(png_);
  row(`Cached render link GET, median of ${LINK_REQUESTS}`, `${fixed(median(link_))} ms`);
  row(`Cache hit POST /api/screenshot, Accept image/png`, `${fixed(median(png_))} ms`);
  row(`Cache hit POST /api/screenshot, JSON (base64)`, `${fixed(median(json_))} ms`);
  row(
    "Render link / POST (png)",
    `${fixed(ratio)}x (vs JSON ${fixed(median(link_) / median(json_))}x)`,
    `goal <= 1.2: ${ratio <= 1.2 ? "met" : "MISSED"}`,
  );
}

function sameBytes(a: Uint8Array, b: Uint8Array) {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}

/** Part 4 on a backend: an undisturbed FAULT_ITEMS job, then one killed half-way. */
async function faultRuns(backend: string, env: Record<string, string>, set: string) {
  let undisturbed: number;
  {
    await using service = await startService(env);
    undisturbed = (await runJob(service.base, pageUrls(pages, `${set}-calm`, FAULT_ITEMS)))
      .seconds;
  }
  const { run, restarted } = await runKilledJob(env, pageUrls(pages, `${set}-killed`, FAULT_ITEMS));
  await restarted.stop();
  reportFault(backend, undisturbed, run);
}

function reportFault(backend: string, undisturbed: number, run: FaultRun) {
  console.log(`  ${backend}: ${JSON.stringify(run)}, undisturbed ${fixed(undisturbed, 1)} s`);
  row(
    `${backend}: ${FAULT_ITEMS}-item job, SIGKILL at ${run.doneAtKill} done, restart`,
    `${run.done} done, ${run.failed} failed, ${run.twice} twice, ${run.retried} retried; ` +
      `${fixed(run.seconds, 1)} s vs ${fixed(undisturbed, 1)} s undisturbed: ` +
      `${fixed(run.seconds - undisturbed, 1)} s lost`,
  );
}

/** Part 2 and part 4 on Redis: one redis-server behind the Upstash REST gateway. */
async function onRedis() {
  await using redis = await startRedisServer();
  const gateway = startUpstashGateway({ redisPort: redis.port });
  const env = {
    ...JOB_SERVICE_ENV,
    UPSTASH_REDIS_REST_URL: gateway.url,
    UPSTASH_REDIS_REST_TOKEN: gateway.token,
  };
  try {
    if (PARTS.has(2)) {
      console.log("\n2. Two instances on one Redis");
      await using a = await startService(env);
      await using b = await startService(env);
      await runJob(a.base, pageUrls(pages, "warm-a", 2));
      await runJob(b.base, pageUrls(pages, "warm-b", 2));
      const id = await submitJob(a.base, pageUrls(pages, "two", JOB_ITEMS));
      const view = await untilJob(a.base, id, (v) => v.finishedAt !== undefined, {
        what: "the shared job to finish",
        timeoutMs: 15 * 60_000,
        intervalMs: 500,
      });
      const seconds = (Date.parse(view.finishedAt!) - Date.parse(view.createdAt)) / 1000;
      const byA = itemLines(a, id).filter((l) => l.applied).length;
      const byB = itemLines(b, id).filter((l) => l.applied).length;
      row(
        `${JOB_ITEMS}-item job on two instances (Redis, a Chromium each)`,
        `${view.counts.done} done: ${byA} by A, ${byB} by B; ${fixed(seconds, 1)} s, ` +
          `${fixed(view.counts.done / seconds)} items/s`,
      );
    }
    if (PARTS.has(4)) {
      console.log("\n4. Fault (Redis)");
      await faultRuns("Redis", env, "redis-fault");
    }
  } finally {
    await gateway.close();
  }
}

try {
  if (PARTS.has(1) || PARTS.has(3) || PARTS.has(5)) await singleInstance();
  if (PARTS.has(4)) {
    console.log("\n4. Fault (Deno KV file)");
    await faultRuns(
      "Deno KV file",
      { ...JOB_SERVICE_ENV, KV_PATH: `${dir}/fault.sqlite3` },
      "kv-fault",
    );
  }
  if (PARTS.has(2) || PARTS.has(4)) await onRedis();
} finally {
  await Deno.remove(dir, { recursive: true });
}

console.log(`\nEnd: ${new Date().toISOString()}, load ${loadAverage()}.\n`);
console.log("| Measure | Result | Goal |\n|---|---|---|");
for (const [measure, result, goal] of rows) console.log(`| ${measure} | ${result} | ${goal} |`);
