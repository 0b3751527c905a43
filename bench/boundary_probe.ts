/**
 * Cost of the boundary self-test, one run, printed as a Markdown table: what it adds to every
 * browser (re)start (the self-test alone on a warm browser), beside launch-to-ready with it.
 *
 *   deno run -A bench/boundary_probe.ts [chromium executable ...]
 */
import { createChromiumCapturer } from "../lib/capture/local/capturer.ts";
import { runBoundarySelfTest } from "../lib/capture/local/boundary_probe.ts";
import { createLogger } from "../lib/log.ts";
import { launchChromium } from "../testing/editor_browser.ts";
import { median } from "./support/measure.ts";

const RUNS = 10;
const LAUNCHES = 5;
const executables = Deno.args.length ? Deno.args : ["/usr/bin/chromium"];
const log = createLogger("error");

async function selfTestMs(executablePath: string): Promise<{ version: string; times: number[] }> {
  const browser = await launchChromium(executablePath);
  try {
    await runBoundarySelfTest({ browser, log }); // warm-up, not counted
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await runBoundarySelfTest({ browser, log });
      times.push(performance.now() - started);
    }
    return { version: await browser.version(), times };
  } finally {
    await browser.close();
  }
}

async function launchToReadyMs(chromePath: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < LAUNCHES; i++) {
    const capturer = createChromiumCapturer({
      chromePath,
      timeoutMs: 15_000,
      allowPrivateNetwork: false,
      log,
    });
    const started = performance.now();
    await capturer.start();
    times.push(performance.now() - started);
    if (capturer.status()[0].state !== "ready") throw new Error(`${chromePath} did not get ready`);
    await capturer.close();
  }
  return times;
}

console.log(
  `Boundary self-test, ${RUNS} runs on a warm browser and ${LAUNCHES} launches each (medians, ms).\n`,
);
console.log("| Chromium | self-test alone | launch to ready (with self-test) | self-test share |");
console.log("| --- | ---: | ---: | ---: |");
for (const executable of executables) {
  const { version, times } = await selfTestMs(executable);
  const ready = median(await launchToReadyMs(executable));
  const alone = median(times);
  console.log(
    `| ${version} | ${alone.toFixed(0)} | ${ready.toFixed(0)} | ${
      (100 * alone / ready).toFixed(0)
    } % |`,
  );
}
