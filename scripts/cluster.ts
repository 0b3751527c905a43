/**
 * `deno task cluster [--keep]`: two real instances of the service (`deno run main.ts`) sharing
 * one Redis (redis-server behind the Upstash REST gateway test fixture) and one remote Chromium
 * (BROWSER_WS_ENDPOINT), all on 127.0.0.1. Prints what it started, runs the demonstration of
 * testing/cluster.ts (shared cache, shared rate limit, shared forceRefresh), prints the
 * results and stops everything; with --keep it stays up until Ctrl-C.
 *
 * The instances run with --deny-read on the usual Chromium paths, so, as on Deno Deploy, they
 * find no local browser and render on the remote one only.
 */
import { CHROME_CANDIDATES } from "../lib/capture/local/browser.ts";
import {
  DEMO_CLIENTS,
  demonstrate,
  type Demonstration,
  type Shot,
  startSharedServices,
} from "../testing/cluster.ts";

// First start may compile and load npm packages; a healthy instance is ready well before this.
const READY_TIMEOUT_MS = 60_000;
// main.ts drains requests for up to 20 s on SIGTERM; past this the instance is killed.
const STOP_TIMEOUT_MS = 25_000;

const root = new URL("..", import.meta.url).pathname;

interface Instance {
  name: "A" | "B";
  url: string;
  log: string;
  child: Deno.ChildProcess;
  stdout: Promise<void>;
}

async function startInstance(
  name: "A" | "B",
  env: Record<string, string>,
  dir: string,
): Promise<Instance> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      `--deny-read=${CHROME_CANDIDATES.join(",")}`,
      "--allow-write",
      "--allow-sys",
      "--allow-ffi",
      "main.ts",
    ],
    cwd: root,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", CHROME_PATH: "", LOG_LEVEL: "info" },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const log = `${dir}/instance-${name.toLowerCase()}.log`;
  const file = await Deno.open(log, { write: true, create: true, truncate: true });
  const stdout = child.stdout.pipeTo(file.writable).catch(() => {});
  return { name, url: `http://127.0.0.1:${port}`, log, child, stdout };
}

/** Waits until /healthz answers and the remote browser is connected. */
async function waitReady(instance: Instance): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      const health = await (await fetch(`${instance.url}/healthz`)).json();
      if (health.capture?.every((s: { state: string }) => s.state === "ready")) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`instance ${instance.name} did not become ready; see ${instance.log}`);
}

async function stopInstance(instance: Instance): Promise<void> {
  try {
    instance.child.kill("SIGTERM");
  } catch {
    return; // already exited
  }
  const timer = setTimeout(() => instance.child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await instance.child.status;
  clearTimeout(timer);
  await instance.stdout;
}

function report(demo: Demonstration): boolean {
  const shot = (label: string, s: Shot) =>
    `   ${label.padEnd(12)} ${s.status}` +
    (s.status === 200
      ? ` cached=${String(s.cached).padEnd(5)} strategy=${s.strategy} png=${s.digest?.slice(0, 12)}`
      : "");
  const yes = (ok: boolean) => (ok ? "yes" : "NO");
  const { throughA, throughB } = demo.sharedCache;
  const cacheOk = throughA.cached === false && throughB.cached === true &&
    throughA.digest === throughB.digest;
  const { shots, admitted, limited } = demo.sharedLimit;
  const per = (name: string, status: number) =>
    shots.filter((s) => s.instance === name && s.status === status).length;
  const limitOk = admitted === 20 && limited === 10;
  const { before, refreshed, after } = demo.sharedRefresh;
  const refreshOk = refreshed.cached === false && refreshed.digest !== before.digest &&
    after.cached === true && after.digest === refreshed.digest;
  console.log(
    [
      "",
      "1. A capture made through A is a cache hit through B",
      shot("A", throughA),
      shot("B", throughB) + `   same bytes: ${yes(throughA.digest === throughB.digest)}`,
      "",
      `2. ${shots.length} requests from one client IP ` +
      `(X-Forwarded-For: ${DEMO_CLIENTS.limit}), alternating A and B`,
      `   admitted ${admitted} (A ${per("A", 200)}, B ${per("B", 200)}); ` +
      `refused with 429: ${limited} (A ${per("A", 429)}, B ${per("B", 429)})`,
      "",
      "3. forceRefresh on B replaces what A serves",
      shot("A", before),
      shot("B refresh", refreshed),
      shot("A", after) + `   = B's refresh: ${yes(after.digest === refreshed.digest)}`,
      "",
      cacheOk && limitOk && refreshOk ? "All three hold." : "FAILED: see above.",
    ].join("\n"),
  );
  return cacheOk && limitOk && refreshOk;
}

async function main() {
  const keep = Deno.args.includes("--keep");
  const dir = await Deno.makeTempDir({ prefix: "shotline_cluster_" });
  let ok = false;
  {
    await using shared = await startSharedServices();
    const instances: Instance[] = [];
    try {
      instances.push(await startInstance("A", shared.env, dir));
      instances.push(await startInstance("B", shared.env, dir));
      await Promise.all(instances.map(waitReady));
      console.log(
        [
          "Shotline cluster: two instances, one Redis, one remote browser (all on 127.0.0.1)",
          `  Redis            redis-server on port ${shared.redis.port}, ` +
          `through the Upstash REST gateway at ${shared.gateway.url}`,
          `  Remote browser   ${shared.browser.endpoint}`,
          `  Pages            ${shared.pagesOrigin}/ and ${shared.pagesOrigin}/changing`,
          ...instances.map((i) =>
            `  Instance ${i.name}       ${i.url}  (pid ${i.child.pid}, log ${i.log})`
          ),
        ].join("\n"),
      );
      // The instances are other processes: their cache writes (which end after the answer,
      // within ms on loopback, 3 s at most) cannot be watched from here, so give them a moment.
      const landed = () => new Promise<void>((resolve) => setTimeout(resolve, 500));
      ok = report(
        await demonstrate(instances[0].url, instances[1].url, shared.pagesOrigin, landed),
      );
      if (keep) {
        console.log("\nStill running (--keep): press Ctrl-C to stop everything.");
        await new Promise<void>((resolve) => Deno.addSignalListener("SIGINT", resolve));
      }
    } finally {
      await Promise.all(instances.map(stopInstance));
    }
  } // the remote browser, the gateway and Redis stop here
  if (ok) await Deno.remove(dir, { recursive: true });
  else console.log(`Instance logs kept in ${dir}`);
  console.log("Stopped the instances, the remote browser, the gateway and Redis.");
  if (!ok) Deno.exitCode = 1;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

if (import.meta.main) await main();
