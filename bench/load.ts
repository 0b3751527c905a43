/**
 * `deno task load`: the real main.ts under load, loopback only, bounded in time (about 4 min).
 *
 * main.ts runs unchanged as a child process (KV_PATH=:memory:, TRUST_PROXY_HOPS=1,
 * ALLOW_PRIVATE_NETWORK=true so Chromium may open the loopback pages). Its upstreams are played
 * by testing/tls_media_hosts.ts: real TLS servers for the real host names, reached through the
 * HTTPS_PROXY / DENO_CERT that main.ts's fetch honours (docs/configuration.md). autocannon (npm, used as a
 * library) drives it; each request carries its own client IP in X-Forwarded-For.
 *
 *   deno task load [--seconds=10] [--connections=16,64,256]
 *
 * Prints Markdown tables: requests/s, p50/p99 latency, generator errors, statuses, requests that
 * failed other than by design, and the peak RSS of Deno and of Chromium during each run; then
 * the graceful-load figures of bench/load/graceful.ts (about 2 min more).
 */
import { encodeFixture, screenshotPixels } from "../testing/codecs.ts";
import { logSummary, readLogWindow } from "./load/log.ts";
import { type LoadOutcome, type Measured, printReport } from "./load/report.ts";
import { Buffer, runLoad, type Scenario } from "./load/runner.ts";
import { loadAverage } from "./support/measure.ts";
import { sampleMemory, type Service, startService } from "./load/service.ts";
import { spawnJsonChild } from "../testing/json_child.ts";
import type { UpstreamInfo } from "../testing/tls_media_hosts.ts";
import { gracefulLoad } from "./load/graceful.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SECONDS = Number(option("seconds") ?? 10);
const CONNECTIONS = (option("connections") ?? "16,64,256").split(",").map(Number);
const FLOOD_SECONDS = 20;
const FLOOD_CONNECTIONS = 64;
// Requests per client IP in the spread runs: far below the 20/min limit.
const PER_IP = 5;
const POST_ID = "20";
const MEDIA_URL = "https://pbs.twimg.com/media/load.jpg";
const PAUSE_MS = 1_500;
// Connections the exporter can take without queueing past its bound: the baseline row.
const EXPORT_BASELINE = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Distinct client IPs from 198.18.0.0/15 (RFC 2544's benchmarking range): 131072 of them. */
const spreadIp = (n: number) => {
  const i = Math.floor(n / PER_IP) % 131072;
  return `198.${18 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
};

const fmt = (n: number, digits = 0) => n.toFixed(digits);

async function expectStatus(res: Response, status: number, what: string) {
  const body = new Uint8Array(await res.arrayBuffer());
  if (res.status !== status) {
    throw new Error(`${what}: HTTP ${res.status} ${new TextDecoder().decode(body.slice(0, 300))}`);
  }
  return body;
}

function captureRequest(url: string, forceRefresh = false) {
  return JSON.stringify({ url, forceRefresh });
}

async function exportUpload() {
  const png = await encodeFixture(screenshotPixels(1920, 1080), "png");
  const form = new FormData();
  form.append(
    "image",
    new File([png as Uint8Array<ArrayBuffer>], "shot.png", { type: "image/png" }),
  );
  form.append("format", "jpeg");
  form.append("qualityPreset", "medium");
  const request = new Request("http://localhost/", { method: "POST", body: form });
  return {
    pngBytes: png.length,
    contentType: request.headers.get("content-type")!,
    body: Buffer.from(await request.arrayBuffer()),
  };
}

async function run(service: Service, upstream: UpstreamInfo): Promise<LoadOutcome> {
  const origin = service.origin;
  const pages = `http://127.0.0.1:${upstream.pagesPort}`;
  const pageUrl = `${pages}/page?n=cached`;
  const json = { "content-type": "application/json" };
  const idle = sampleMemory(service.pid);

  // Prime: one render fills the capture cache, one lookup the post cache.
  const post = (body: string, ip: string) =>
    fetch(`${origin}/api/screenshot`, {
      method: "POST",
      headers: { ...json, "x-forwarded-for": ip },
      body,
    });
  await expectStatus(await post(captureRequest(pageUrl), "192.0.2.1"), 200, "priming capture");
  await expectStatus(await fetch(`${origin}/api/post/${POST_ID}`), 200, "priming post lookup");
  const media = await expectStatus(
    await fetch(`${origin}/api/image-proxy?url=${encodeURIComponent(MEDIA_URL)}`),
    200,
    "priming media proxy",
  );
  const upload = await exportUpload();
  await expectStatus(
    await fetch(`${origin}/api/export`, {
      method: "POST",
      headers: { "content-type": upload.contentType },
      body: upload.body,
    }),
    200,
    "priming export",
  );

  const capture: Scenario = {
    name: "Cached capture (POST /api/screenshot)",
    method: "POST",
    path: () => "/api/screenshot",
    headers: json,
    body: () => captureRequest(pageUrl),
    ip: spreadIp,
    allowed: [200, 503],
    checkOk: (b) => (b.includes('"cached":true') ? null : "200 capture not served from cache"),
  };
  const scenarios: Scenario[] = [
    capture,
    {
      name: "Cached post lookup (GET /api/post/20)",
      method: "GET",
      path: () => `/api/post/${POST_ID}`,
      ip: spreadIp,
      allowed: [200],
      checkOk: (b) => (JSON.parse(b).data?.id_str === POST_ID ? null : "200 post without data"),
    },
    {
      name: `Export 1920x1080 PNG (${fmt(upload.pngBytes / 1024)} KB) to JPEG medium`,
      method: "POST",
      path: () => "/api/export",
      headers: { "content-type": upload.contentType },
      body: () => upload.body,
      ip: spreadIp,
      allowed: [200, 503],
      checkOk: (b) => (b.length > 10_000 ? null : "200 export too small"),
    },
    {
      name: `Proxied media (${fmt(media.length / 1024)} KB image/jpeg)`,
      method: "GET",
      path: () => `/api/image-proxy?url=${encodeURIComponent(MEDIA_URL)}`,
      ip: spreadIp,
      allowed: [200],
      checkOk: (b) => (b.length >= media.length / 2 ? null : "200 media body short"),
    },
  ];
  let logOffset = (await Deno.stat(service.logPath)).size;
  /** One autocannon run plus what the service logged meanwhile. */
  const measure = async (
    scenario: Scenario,
    connections: number,
    seconds: number,
    target = origin,
  ): Promise<Measured> => {
    const result = await runLoad(target, scenario, connections, seconds, service.pid);
    await sleep(PAUSE_MS); // work still queued from this run finishes (and logs) before the next
    const log = await readLogWindow(service.logPath, logOffset);
    logOffset = log.end;
    return { ...result, log };
  };
  const [, lookups, exporting, proxied] = scenarios;
  const results: Measured[] = [];
  for (const scenario of [capture, lookups, proxied]) {
    for (const connections of CONNECTIONS) {
      results.push(await measure(scenario, connections, SECONDS));
    }
  }
  // The generator's own ceiling on a 1 MB body: the same bytes straight from the upstream.
  const ceiling = await measure(
    {
      ...proxied,
      name: "Reference: same 1 MB body from the upstream directly (no service, no TLS)",
      path: () => "/media/load.jpg",
    },
    64,
    SECONDS,
    pages,
  );

  // One client IP past the limit: 20 captures pass, the rest are 429 by design.
  const limited = await measure(
    {
      ...capture,
      name: "Cached capture, one client IP (203.0.113.7)",
      ip: () => "203.0.113.7",
      allowed: [200, 429],
    },
    16,
    5,
  );

  // Uncached captures past the queue bound: every request a distinct URL.
  const before = sampleMemory(service.pid);
  const flood = await measure(
    {
      ...capture,
      name: "Uncached captures, distinct URLs",
      body: (n) => captureRequest(`${pages}/page?n=flood-${n}`),
      checkOk: (b) => (b.includes('"cached":false') ? null : "flood capture served from cache"),
    },
    FLOOD_CONNECTIONS,
    FLOOD_SECONDS,
  );
  // Recovery, same process: the queue drains, then a normal new capture must succeed.
  await sleep(3_000);
  const started = performance.now();
  const after = await post(captureRequest(`${pages}/page?n=after-flood`), "192.0.2.2");
  const recoveredStatus = after.status;
  const recovered = JSON.parse(new TextDecoder().decode(await after.arrayBuffer()));
  const recoveryMs = performance.now() - started;
  await sleep(5_000);
  const settled = sampleMemory(service.pid);

  logOffset = (await Deno.stat(service.logPath)).size; // the recovery capture is not a run
  // Export last: uploads arriving as fast as 256 clients can send them raise the heap's
  // high-water mark, which V8 keeps, and that would blur the memory figures of the other runs.
  // It also runs within its capacity (2 slots + 1 small-image slot), as a baseline.
  for (const connections of [EXPORT_BASELINE, ...CONNECTIONS]) {
    results.push(await measure(exporting, connections, SECONDS));
  }
  await sleep(8_000);
  const final = sampleMemory(service.pid);
  const health = await (await fetch(`${origin}/healthz`)).json();
  return {
    idle,
    final,
    health,
    results,
    ceiling,
    limited,
    before,
    flood,
    settled,
    recoveredStatus,
    recovered,
    recoveryMs,
  };
}

// A fresh token per run: /metrics is read once, after the load, for the report.
const METRICS_TOKEN = crypto.randomUUID();

/** What GET /metrics says after the load: every series except histogram buckets. */
async function printMetrics(service: Service) {
  const res = await fetch(`${service.origin}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const lines = (await res.text()).split("\n").filter((line) =>
    line && !line.startsWith("#") && !line.includes("_bucket{")
  );
  console.log(
    `\n### /metrics after the load (HTTP ${res.status})\n\n\`\`\`\n${lines.join("\n")}\n\`\`\`\n`,
  );
}

async function main() {
  const startedAt = performance.now();
  const loadBefore = loadAverage();
  const logDir = await Deno.makeTempDir({ prefix: "shotline-load-" });
  const upstream = await spawnJsonChild<UpstreamInfo>("testing/tls_media_hosts.ts");
  let service: Service | undefined;
  try {
    service = await startService({
      KV_PATH: ":memory:",
      TRUST_PROXY_HOPS: "1",
      ALLOW_PRIVATE_NETWORK: "true",
      HTTPS_PROXY: `http://127.0.0.1:${upstream.info.proxyPort}`,
      DENO_CERT: upstream.info.caPath,
      METRICS_TOKEN,
    }, logDir);
    const r = await run(service, upstream.info);
    await printMetrics(service);
    const exitCode = await service.stop();
    const logs = await logSummary(service.logPath);
    service = undefined;

    const { failed, problems } = printReport(r, {
      seconds: SECONDS,
      runsBeforeExport: CONNECTIONS.length * 3,
      floodConnections: FLOOD_CONNECTIONS,
      perIp: PER_IP,
      loadBefore,
      logs,
      exitCode,
      wallSeconds: (performance.now() - startedAt) / 1000,
    });
    if (failed || problems.length || r.recoveredStatus !== 200 || exitCode !== 0) Deno.exitCode = 1;
    // Admission by time, the hot rate-limit key and the upload flood, each on a fresh service.
    console.log(`\n## Graceful load\n\n${(await gracefulLoad(SECONDS)).join("\n")}`);
  } finally {
    await service?.stop();
    await upstream.stop();
    await Deno.remove(logDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
