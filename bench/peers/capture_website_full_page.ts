/**
 * One full-page capture by `capture-website` in a process of its own, for
 * `bench/full_page_shapes.ts`: the parent reads this process's Chromium from /proc while it runs.
 * Prints one JSON line: the capture's time, PNG size and image size, and this process's peak RSS.
 *
 *   deno run -A bench/peers/capture_website_full_page.ts <url> <scale>
 */
import captureWebsite from "capture-website";
import { pngSize } from "../../testing/png.ts";
import { procBytes } from "../support/measure.ts";
import { CHROMIUM, FLAGS } from "./capture.ts";

const [url, scale = "1"] = Deno.args;
const started = performance.now();
const png = await captureWebsite.buffer(url, {
  width: 1920,
  height: 1080,
  scaleFactor: Number(scale),
  fullPage: true,
  type: "png",
  // Its ad blocker downloads filter lists from the internet first; there is none here.
  blockAds: false,
  // Seconds; its 30,000 px page alone took 33 s on this machine.
  timeout: 300,
  launchOptions: { executablePath: CHROMIUM, args: FLAGS, headless: true },
});
const ms = performance.now() - started;
const { width, height } = pngSize(new Uint8Array(png));
console.log(JSON.stringify({
  ms,
  bytes: png.length,
  width,
  height,
  peakRss: procBytes(Deno.pid, "status", "VmHWM"),
}));
