/**
 * Graceful-load figures (part of `deno task load`, or alone), each against the real main.ts:
 * - 20 distinct captures sent at once from one client IP at the default settings: statuses
 *   and p50/p99 (all must be 200: the queue admits by time, the per-IP limit is 20);
 * - cached captures/s with one hot client key vs many keys, on Deno KV and on Upstash Redis
 *   (the REST gateway fixture over a loopback redis-server), RATE_LIMIT_PER_MINUTE=100000;
 * - the upload flood of bench/load/uploads.ts: peak RSS and statuses.
 *
 *   deno run -A bench/load/graceful.ts [--seconds=10]
 */
import { startRedisServer } from "../../testing/redis_server.ts";
import { startUpstashGateway } from "../../testing/upstash_gateway.ts";
import { runLoad, type Scenario } from "./runner.ts";
import { loadAverage, median } from "../support/measure.ts";
import { startService } from "./service.ts";
import { spawnJsonChild } from "../../testing/json_child.ts";
import type { UpstreamInfo } from "../../testing/tls_media_hosts.ts";
import { uploadFlood } from "./uploads.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SECONDS = Number(option("seconds") ?? 10);
const CONNECTIONS = 64;
const HOT_LIMIT = "100000";

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

/** 20 distinct loopback pages requested at once by one client IP. */
async function twentyAtOnce(origin: string, pages: string): Promise<string[]> {
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const t0 = performance.now();
    const res = await fetch(`${origin}/api/screenshot`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.20" },
      body: JSON.stringify({ url: `${pages}/page?n=tab-${i}` }),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t0 };
  }));
  const ms = results.map((r) => r.ms);
  const statuses = new Map<number, number>();
  for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const all200 = statuses.get(200) === 20;
  return [
    `| 20 distinct captures at once, one client IP, defaults | ${
      [...statuses].map(([s, n]) => `${s}: ${n}`).join(", ")
    } | p50 ${median(ms).toFixed(0)} ms, p99 ${quantile(ms, 0.99).toFixed(0)} ms, all in ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s | all 200 ${all200 ? "(met)" : "(MISSED)"} |`,
  ];
}

/** Cached captures/s through autocannon: one hot client IP, then one IP per request. */
async function hotKey(
  origin: string,
  pid: number,
  pageUrl: string,
  store: string,
  seconds: number,
) {
  const prime = await fetch(`${origin}/api/screenshot`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": "192.0.2.1" },
    body: JSON.stringify({ url: pageUrl }),
  });
  if (prime.status !== 200) throw new Error(`priming capture: HTTP ${prime.status}`);
  await prime.arrayBuffer();
  const scenario = (name: string, ip: (n: number) => string): Scenario => ({
    name,
    method: "POST",
    path: () => "/api/screenshot",
    headers: { "content-type": "application/json" },
    body: () => JSON.stringify({ url: pageUrl }),
    ip,
    allowed: [200],
  });
  const many = await runLoad(
    origin,
    scenario("many keys", (n) => `198.18.${(n >> 8) & 255}.${n & 255}`),
    CONNECTIONS,
    seconds,
    pid,
  );
  const hot = await runLoad(
    origin,
    scenario("one hot key", () => "203.0.113.7"),
    CONNECTIONS,
    seconds,
    pid,
  );
  const ratio = hot.rps / many.rps;
  const row = (label: string, r: typeof hot) =>
    `| ${store}, ${label} | ${r.rps.toFixed(0)} req/s | p50 ${r.p50} ms, p99 ${r.p99} ms, ` +
    `statuses ${JSON.stringify(r.statuses)}, errors ${r.errors}`;
  return [
    `${row("many client keys", many)} | |`,
    `${row("one hot client key", hot)} | hot / many ${ratio.toFixed(2)}x, at least 0.8x ${
      ratio >= 0.8 ? "(met)" : "(MISSED)"
    } |`,
  ];
}

/** Runs every section, each on its own fresh service; returns the Markdown lines. */
export async function gracefulLoad(seconds = SECONDS): Promise<string[]> {
  const logDir = await Deno.makeTempDir({ prefix: "shotline-graceful-" });
  const upstream = await spawnJsonChild<UpstreamInfo>("testing/tls_media_hosts.ts");
  const pages = `http://127.0.0.1:${upstream.info.pagesPort}`;
  const base = { KV_PATH: ":memory:", TRUST_PROXY_HOPS: "1", ALLOW_PRIVATE_NETWORK: "true" };
  const lines = [
    `Load average at start: ${loadAverage()}; ${CONNECTIONS} connections, ${seconds} s per run.`,
    "",
    "| measure | result | detail | target |",
    "|---|---|---|---|",
  ];
  try {
    let service = await startService(base, logDir);
    try {
      lines.push(...await twentyAtOnce(service.origin, pages));
    } finally {
      await service.stop();
    }
    service = await startService({ ...base, RATE_LIMIT_PER_MINUTE: HOT_LIMIT }, logDir);
    try {
      lines.push(
        ...await hotKey(service.origin, service.pid, `${pages}/page?n=hot`, "Deno KV", seconds),
      );
    } finally {
      await service.stop();
    }
    await using redis = await startRedisServer();
    await using gateway = startUpstashGateway({ redisPort: redis.port });
    service = await startService({
      ...base,
      RATE_LIMIT_PER_MINUTE: HOT_LIMIT,
      UPSTASH_REDIS_REST_URL: gateway.url,
      UPSTASH_REDIS_REST_TOKEN: gateway.token,
    }, logDir);
    try {
      lines.push(
        ...await hotKey(
          service.origin,
          service.pid,
          `${pages}/page?n=hot`,
          "Upstash (gateway)",
          seconds,
        ),
      );
    } finally {
      await service.stop();
    }
    service = await startService({ KV_PATH: ":memory:" }, logDir);
    try {
      lines.push("", ...await uploadFlood(service.origin, service.pid));
    } finally {
      await service.stop();
    }
  } finally {
    await upstream.stop();
    await Deno.remove(logDir, { recursive: true }).catch(() => {});
  }
  return lines;
}

if (import.meta.main) console.log((await gracefulLoad()).join("\n"));
