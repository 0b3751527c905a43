/**
 * What `scripts` costs a capture that does not send them: the real main.ts of this checkout and
 * of the version before `scripts` existed (a checkout of it at `--before=<dir>`), side by side in
 * one run, the same loopback page captured with forceRefresh in alternating rounds; this
 * checkout with one trivial script beside them, for scale. Printed as Markdown.
 *
 *   git worktree add /tmp/before-scripts 8477742
 *   deno run -A bench/scripts_cost.ts --before=/tmp/before-scripts [--rounds=15]
 */
import { loadAverage, median } from "./support/measure.ts";
import { startService } from "./load/service.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 15);
const BEFORE = option("before");
if (!BEFORE) throw new Error("--before=<checkout of the version before scripts> is required");

const PAGE = `<!doctype html><html><head><title>Cost</title></head><body>
<main>${"<p>The tide turns twice a day along the estuary.</p>".repeat(200)}</main></body></html>`;
const pages = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
);
const url = `http://127.0.0.1:${pages.addr.port}/`;
const env = { ALLOW_PRIVATE_NETWORK: "true", RATE_LIMIT_PER_MINUTE: "100000" };
const logDir = await Deno.makeTempDir({ prefix: "shotline-scripts-cost-" });

const loadBefore = loadAverage();
const before = await startService(env, logDir, BEFORE);
const after = await startService(env, logDir);
const variants = [
  { name: "before scripts existed, no scripts", origin: before.origin, extra: {} },
  { name: "now, no scripts", origin: after.origin, extra: {} },
  { name: 'now, scripts: ["void 0"]', origin: after.origin, extra: { scripts: ["void 0"] } },
];
const times = variants.map(() => [] as number[]);

async function capture(origin: string, extra: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${origin}/api/screenshot`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "image/png" },
    body: JSON.stringify({ url, forceRefresh: true, ...extra }),
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${origin} answered ${response.status}`);
  return performance.now() - started;
}

try {
  // One warm-up each: the first capture of a service launches nothing more, but fills caches.
  for (const variant of variants) await capture(variant.origin, variant.extra);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, variant] of variants.entries()) {
      times[i].push(await capture(variant.origin, variant.extra));
    }
  }
} finally {
  await before.stop();
  await after.stop();
  await pages.shutdown();
  await Deno.remove(logDir, { recursive: true });
}

const base = median(times[0]);
console.log(
  `${new Date().toISOString()}, ${ROUNDS} rounds, load ${loadBefore} -> ${loadAverage()}`,
);
console.log("\n| capture | median ms | ratio to before |\n| --- | ---: | ---: |");
for (const [i, variant] of variants.entries()) {
  const ms = median(times[i]);
  console.log(`| ${variant.name} | ${ms.toFixed(0)} | ${(ms / base).toFixed(2)} |`);
}
