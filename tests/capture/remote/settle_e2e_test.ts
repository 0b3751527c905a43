/**
 * Settled captures on the "chromium-remote" backend (a second Chromium plays the fleet): the
 * same corpus and limits as the local backend (testing/settle_steps.ts), through the
 * remote capturer's own context set-up and request guard.
 */
import { CHROMIUM_REMOTE, createRemoteCapturer } from "../../../lib/capture/remote/capturer.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { startRemoteChromium } from "../../../testing/remote_chromium.ts";
import { serveCorpus } from "../../../testing/settle/server.ts";
import { STRESS_PAGES } from "../../../testing/settle/stress_pages.ts";
import { corpusSteps, limitSteps } from "../../../testing/settle_steps.ts";

Deno.test("remote captures are settled: every corpus region right, limits held", async (t) => {
  await using remote = await startRemoteChromium();
  await using server = serveCorpus(STRESS_PAGES);
  const log = createMemoryLogger();
  const capturer = createRemoteCapturer({
    endpoints: [remote.endpoint],
    timeoutMs: 8_000,
    allowPrivateNetwork: true,
    log,
  });
  const harness = { capturer, origin: server.origin, lines: log.lines, strategy: CHROMIUM_REMOTE };
  try {
    await t.step("corpus, viewport and full page", (t) => corpusSteps(t, harness));
    await t.step("limits and options", (t) => limitSteps(t, harness));
  } finally {
    await capturer.close();
  }
});
