/**
 * The sandbox fallback of the local browser host: where the sandbox is planned but does not
 * start, the browser is launched without it, with one warning, and later launches go straight
 * to what works. Run as root, where Chromium refuses to start sandboxed: a probe that says
 * "uid 1000" makes the host try the sandbox first, and the real refusal is the failure.
 */
import assert from "node:assert/strict";
import { createBrowserHost } from "../../../lib/capture/local/browser.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { BROWSER_WAIT_MS, eventually } from "../../../testing/wait.ts";

const WARNING = /WITHOUT its sandbox/;

Deno.test({
  name: "a sandbox that does not start: one warning, launched without it, not retried",
  ignore: Deno.uid() !== 0,
  async fn() {
    const log = createMemoryLogger();
    const host = createBrowserHost({
      // No page is opened: the proxy is never used.
      proxyUrl: () => "http://127.0.0.1:9",
      log,
      onBrowser() {},
      sandboxProbe: { uid: () => 1000, read: () => null },
    });
    try {
      assert.equal(host.sandboxed(), null, "undecided before the first launch");
      const first = await host.get();
      assert.equal(host.sandboxed(), false);
      const warnings = () => log.lines.filter((l) => WARNING.test(String(l.msg)));
      assert.equal(warnings().length, 1);
      assert.match(String(warnings()[0].reason), /the sandbox did not start/);

      // A relaunch after a crash does not try the sandbox again, nor warn again.
      first.process()?.kill("SIGKILL");
      await eventually(
        () => host.pid() !== undefined && host.pid() !== first.process()?.pid,
        "relaunched",
        { timeoutMs: BROWSER_WAIT_MS },
      );
      const launched = log.lines.filter((l) => l.msg === "browser launched");
      assert.deepEqual(launched.map((l) => l.sandbox), [false, false]);
      assert.equal(warnings().length, 1);
    } finally {
      await host.close();
    }
  },
});

Deno.test({
  name: "as root the sandbox is not tried: one warning naming root",
  ignore: Deno.uid() !== 0,
  async fn() {
    const log = createMemoryLogger();
    const host = createBrowserHost({ proxyUrl: () => "http://127.0.0.1:9", log, onBrowser() {} });
    try {
      await host.get();
      assert.equal(host.sandboxed(), false);
      const warnings = log.lines.filter((l) => WARNING.test(String(l.msg)));
      assert.deepEqual(warnings.map((l) => l.reason), ["the service runs as root"]);
    } finally {
      await host.close();
    }
  },
});
