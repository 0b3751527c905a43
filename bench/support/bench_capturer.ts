/**
 * The capture benches' service under test: the real local capturer on a file-backed Deno KV in a
 * temp dir, with every Chromium it launches recorded so a bare loop or the CDP floor can use the
 * very browser the capturer runs.
 */
import puppeteer, { type Browser } from "puppeteer-core";
import { createChromiumCapturer } from "../../lib/capture/local/capturer.ts";
import { createLogger } from "../../lib/log.ts";
import { openKvStore } from "../../lib/store/deno_kv.ts";

/** Installs the launch spy, then builds the capturer and store (nothing is launched yet). */
export async function benchCapturer() {
  const launched: Browser[] = [];
  const launch = puppeteer.launch.bind(puppeteer);
  puppeteer.launch = async (options) => {
    const browser = await launch(options);
    launched.push(browser);
    return browser;
  };
  const log = createLogger("warn", (line) => console.error(line));
  const clock = { now: () => Date.now() };
  const kvDir = await Deno.makeTempDir({ prefix: "shotline-bench-" });
  const store = await openKvStore(`${kvDir}/kv.sqlite3`, clock);
  const capturer = createChromiumCapturer({ timeoutMs: 15_000, allowPrivateNetwork: true, log });
  return { launched, log, clock, kvDir, store, capturer };
}
