/**
 * Cost of the egress proxy for remote browsers, one run, printed as a Markdown table: the median
 * of warm remote captures of the same page on the same fleet Chromium, with EGRESS_PROXY_URL
 * (context proxy, per-capture credentials answered over CDP, every connection through our proxy)
 * against without it (the advisory request guard: interception plus a lookup per host),
 * interleaved round by round (goal: within 1.15x).
 *
 *   deno run -A bench/fleet.ts [--rounds=25]
 *
 * The page (a document, a stylesheet and two images) is served on loopback under the name
 * public.test: the fleet resolves it there itself (--host-resolver-rules), and the proxy's dial
 * seam sends the fake public address it checked to the same server.
 */
import { createFleetProxy } from "../lib/egress/fleet_proxy.ts";
import { createRemoteCapturer } from "../lib/capture/remote/capturer.ts";
import type { Capturer } from "../lib/capture/types.ts";
import { createLogger } from "../lib/log.ts";
import { schemePage, servePages, svg } from "../testing/capture_fixtures.ts";
import { startRemoteChromium } from "../testing/remote_chromium.ts";

const ROUNDS = Number(
  Deno.args.find((a) => a.startsWith("--rounds="))?.slice("--rounds=".length) ?? 25,
);
const WARM_UP = 3;
// Lets the fleet settle the closed context between captures, as it would between users.
const GAP_MS = 200;
const PUBLIC_IP = "93.184.215.14";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const p90 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)];

const pages = servePages({
  "/bench": () =>
    new Response(
      schemePage(
        `<link rel="stylesheet" href="/style.css"><h1>Hello</h1>` +
          `<img src="/a.svg"><img src="/b.svg">`,
      ),
      { headers: { "content-type": "text/html" } },
    ),
  "/style.css": () =>
    new Response("h1 { font: 32px sans-serif }", { headers: { "content-type": "text/css" } }),
  "/a.svg": () => svg("#3366ff"),
  "/b.svg": () => svg("#ff6633"),
});
await using fleet = await startRemoteChromium({
  args: ["--host-resolver-rules=MAP public.test 127.0.0.1"],
});
const log = createLogger("error");
const resolver = (host: string) => Promise.resolve(host === "public.test" ? [PUBLIC_IP] : []);
const common = { endpoints: [fleet.endpoint], timeoutMs: 15_000, allowPrivateNetwork: false, log };
const advisory = createRemoteCapturer({ ...common, resolver });
const proxied = createRemoteCapturer({
  ...common,
  fleetProxy: createFleetProxy({
    listen: { hostname: "127.0.0.1", port: 0 },
    policy: {
      resolver,
      allowPrivateNetwork: false,
      connectTimeoutMs: 10_000,
      dial: (address, port, signal) => {
        if (address !== PUBLIC_IP) throw new Error(`unexpected dial to ${address}`);
        return Deno.connect({ hostname: "127.0.0.1", port, signal });
      },
    },
    log,
  }),
});
const url = `http://public.test:${pages.port}/bench`;

async function timed(capturer: Capturer): Promise<number> {
  const started = performance.now();
  const result = await capturer.capture({ url, deviceType: "desktop", colorScheme: "light" });
  if (result.targetStatus !== 200) throw new Error(`status ${result.targetStatus}`);
  return performance.now() - started;
}

try {
  await Promise.all([advisory.start(), proxied.start()]);
  for (let i = 0; i < WARM_UP; i++) {
    await timed(advisory);
    await timed(proxied);
  }
  const times = { advisory: [] as number[], proxied: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always follows the other's context close.
    const order = round % 2 ? ["proxied", "advisory"] as const : ["advisory", "proxied"] as const;
    for (const name of order) {
      times[name].push(await timed(name === "proxied" ? proxied : advisory));
      await sleep(GAP_MS);
    }
  }
  const [a, p] = [median(times.advisory), median(times.proxied)];
  console.log(`load average: ${Deno.loadavg().map((v) => v.toFixed(2)).join(" ")}\n`);
  console.log("| Warm remote capture (4 requests) | median ms | p90 ms |");
  console.log("| --- | ---: | ---: |");
  console.log(
    `| without EGRESS_PROXY_URL (request guard) | ${a.toFixed(0)} | ${
      p90(times.advisory).toFixed(0)
    } |`,
  );
  console.log(
    `| with EGRESS_PROXY_URL (egress proxy) | ${p.toFixed(0)} | ${p90(times.proxied).toFixed(0)} |`,
  );
  console.log(`\nratio with / without: **${(p / a).toFixed(2)}x** (goal: at most 1.15x)`);
} finally {
  await advisory.close();
  await proxied.close();
  await pages.close();
}
