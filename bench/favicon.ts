/**
 * What the favicon's bytes cost a warm capture (page.faviconData, lib/capture/page/favicon.ts),
 * printed as Markdown (bench/README.md). The service's local capturer shoots the same 1920x1080
 * page, interleaved, in arms that differ only in the icon it declares:
 * - 404: none that loads (a `data:` link does not count, so the origin's /favicon.ico is asked
 *   for, and answers 404);
 * - png: a 1.3 KiB 32 px PNG; ico: a 3-image .ico (16, 32 and 64 px PNGs), cut to its 32 px image;
 * - slow png: the same PNG answered 250 ms late (the load overlaps the shot, so the capture should
 *   wait only for what the shot does not cover).
 * The difference of the medians against "404" is the favicon's cost on a warm capture, within the
 * machine's noise; the render's own log says how long it waited for the icon once the page was
 * shot, which is the part of the load the capture did not hide.
 *
 *   deno run -A bench/favicon.ts [--rounds=15]
 */
import { createChromiumCapturer } from "../lib/capture/local/capturer.ts";
import { createMemoryLogger } from "../lib/log.ts";
import { icoOf, solidPng } from "../testing/icons.ts";
import { loadAverage, median } from "./support/measure.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 15);
const SLOW_MS = 250;

const png = solidPng(32, [0x1c, 0x7e, 0xd6]);
const ico = icoOf([
  { side: 16, bytes: solidPng(16, [255, 0, 0]) },
  { side: 32, bytes: png },
  { side: 64, bytes: solidPng(64, [0, 0, 255]) },
]);
const page = (icon: string) =>
  `<!doctype html><meta charset="utf-8"><title>Icon</title><link rel="icon" href="${icon}">
<body style="margin:0;font:24px system-ui"><h1>Favicon bench</h1>${
    "<p>Some text to raster.</p>".repeat(30)
  }`;

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  const { pathname } = new URL(request.url);
  const image = (bytes: Uint8Array, type: string) =>
    new Response(bytes.slice(), { headers: { "content-type": type } });
  if (pathname === "/icon.png") return image(png, "image/png");
  if (pathname === "/icon.ico") return image(ico, "image/x-icon");
  if (pathname === "/slow.png") {
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    return image(png, "image/png");
  }
  const icon = { "/404": "data:,", "/png": "/icon.png", "/ico": "/icon.ico", "/slow": "/slow.png" }[
    pathname
  ];
  return icon
    ? new Response(page(icon), { headers: { "content-type": "text/html" } })
    : new Response("no", { status: 404 });
});
const origin = `http://127.0.0.1:${server.addr.port}`;

// The render logs how long it waited for the icon once the page was shot (debug).
const log = createMemoryLogger();
const capturer = createChromiumCapturer({ timeoutMs: 15_000, allowPrivateNetwork: true, log });
await capturer.start();
const ARMS = ["404", "png", "ico", "slow"] as const;
const times: Record<string, number[]> = Object.fromEntries(ARMS.map((arm) => [arm, []]));
const kept: Record<string, boolean> = {};
const waits: Record<string, number[]> = Object.fromEntries(ARMS.map((arm) => [arm, []]));
console.log(`load before: ${loadAverage()}`);
// One round of each arm to warm the browser, the pool and the proxy; then interleaved rounds.
for (let round = -1; round < ROUNDS; round++) {
  for (const arm of ARMS) {
    const started = performance.now();
    const result = await capturer.capture({
      url: `${origin}/${arm}`,
      deviceType: "desktop",
      colorScheme: "light",
    });
    const ms = performance.now() - started;
    const waited = log.lines.findLast((l) => String(l.msg).startsWith("favicon"))?.waitedMs;
    log.lines.length = 0;
    if (round >= 0) {
      times[arm].push(ms);
      if (typeof waited === "number") waits[arm].push(waited);
    }
    kept[arm] = result.page?.faviconData !== null;
  }
}
console.log(
  `\n| icon | faviconData | median capture | vs 404 | waited after the shot (median, max) |\n` +
    `|---|---|---:|---:|---:|`,
);
const none = median(times["404"]);
for (const arm of ARMS) {
  const ms = median(times[arm]);
  console.log(
    `| ${arm} | ${kept[arm] ? "kept" : "null"} | ${ms.toFixed(1)} ms | ${
      arm === "404" ? "" : `${ms - none >= 0 ? "+" : ""}${(ms - none).toFixed(1)} ms`
    } | ${
      waits[arm].length
        ? `${median(waits[arm]).toFixed(1)} ms, ${Math.max(...waits[arm]).toFixed(1)} ms`
        : "none logged"
    } |`,
  );
}
console.log(`\n${ROUNDS} rounds each, interleaved; load after: ${loadAverage()}`);
await capturer.close();
await server.shutdown();
