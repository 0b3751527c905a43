/**
 * Settled captures on the local backend: the settle corpus (real, unmodified front-end
 * libraries on loopback pages) through one local capturer and one page server for the file,
 * judged by the decoded pixels of each region (see testing/settle_steps.ts).
 */
import { CHROMIUM_LOCAL, createChromiumCapturer } from "../../../lib/capture/local/capturer.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { serveCorpus } from "../../../testing/settle/server.ts";
import { STRESS_PAGES } from "../../../testing/settle/stress_pages.ts";
import { corpusSteps, limitSteps } from "../../../testing/settle_steps.ts";

Deno.test("local captures are settled: every corpus region right, limits held", async (t) => {
  await using server = serveCorpus(STRESS_PAGES);
  const log = createMemoryLogger();
  const capturer = createChromiumCapturer({ timeoutMs: 8_000, allowPrivateNetwork: true, log });
  const harness = { capturer, origin: server.origin, lines: log.lines, strategy: CHROMIUM_LOCAL };
  try {
    await t.step("corpus, viewport and full page", (t) => corpusSteps(t, harness));
    await t.step("limits and options", (t) => limitSteps(t, harness));
  } finally {
    await capturer.close();
  }
});
