import assert from "node:assert/strict";
import { PROFILE_PREFIX } from "../../../lib/capture/local/browser.ts";
import { createChromiumCapturer } from "../../../lib/capture/local/capturer.ts";
import { type ContextOpener, openSessionContext } from "../../../lib/capture/local/context_pool.ts";
import type { CaptureJob } from "../../../lib/capture/types.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { createTestApp } from "../../../testing/app.ts";
import { servePages } from "../../../testing/capture_fixtures.ts";
import { BROWSER_WAIT_MS, eventually } from "../../../testing/wait.ts";
import { within } from "../../../testing/fault_checks.ts";
import { captureAnswer } from "../../../testing/capture_answer.ts";

const job = (url: string): CaptureJob => ({ url, deviceType: "desktop", colorScheme: "light" });

function loopbackCapturer() {
  const log = createMemoryLogger();
  const capturer = createChromiumCapturer({ timeoutMs: 10_000, allowPrivateNetwork: true, log });
  return { capturer, log };
}

/** Temporary profiles of this process still on disk (Deno.makeTempDir uses TMPDIR or /tmp). */
async function ownProfiles(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(Deno.env.get("TMPDIR") ?? "/tmp")) {
    if (entry.name.startsWith(`${PROFILE_PREFIX}${Deno.pid}-`)) names.push(entry.name);
  }
  return names;
}

/** Live (not zombie) processes as [pid, parent pid, command], from ps (/proc needs -A). */
function processes(): [number, number, string][] {
  const out = new Deno.Command("ps", { args: ["-e", "-o", "pid=,ppid=,stat=,comm="] }).outputSync();
  return new TextDecoder().decode(out.stdout).split("\n").flatMap((line) => {
    const [pid, ppid, stat, command] = line.trim().split(/\s+/);
    return pid && !stat.startsWith("Z") ? [[Number(pid), Number(ppid), command]] : [];
  }) as [number, number, string][];
}

function processAlive(pid: number): boolean {
  return processes().some(([p]) => p === pid);
}

Deno.test("a capturer that is never used never launches Chromium", async () => {
  const { capturer } = loopbackCapturer();
  assert.equal(capturer.browserPid(), undefined);
  assert.deepEqual(capturer.status(), [
    { name: "chromium-local", state: "down", detail: "not started", sandbox: null },
  ]);
  await capturer.close();
  assert.deepEqual(await ownProfiles(), []);
});

Deno.test("/healthz reports the capture backend; the test app's default one stays unlaunched", async () => {
  const t = await createTestApp();
  try {
    const response = await t.app.request("/healthz");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    const body = await response.json();
    // Names and states only: the detail is for logs, not for anonymous callers.
    assert.deepEqual(body.capture, [{ name: "chromium-local", state: "down", sandbox: null }]);
  } finally {
    await t.close();
  }
});

Deno.test("a killed browser is relaunched and the next capture works", async () => {
  const pages = servePages();
  const { capturer, log } = loopbackCapturer();
  try {
    await capturer.start();
    assert.equal(capturer.status()[0].state, "ready");
    const first = capturer.browserPid();
    assert.ok(first && processAlive(first));
    Deno.kill(first, "SIGKILL");
    await eventually(
      () => log.lines.some((l) => l.msg === "browser disconnected; relaunching"),
      "relaunch",
      { timeoutMs: BROWSER_WAIT_MS },
    );
    const result = await capturer.capture(job(`${pages.origin}/`));
    assert.equal(result.targetStatus, 200);
    const second = capturer.browserPid();
    assert.ok(second && second !== first, "a new browser process");
    assert.equal(processAlive(first), false);
    for (let i = 0; i < 100 && (await ownProfiles()).length > 1; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal((await ownProfiles()).length, 1, "the dead browser's profile was removed");
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("a crash during a capture fails that capture with 503 and the next one succeeds", async () => {
  const pages = servePages();
  const { capturer } = loopbackCapturer();
  try {
    await capturer.start();
    const pid = capturer.browserPid()!;
    const inFlight = captureAnswer(capturer.capture(job(`${pages.origin}/hang`)));
    await eventually(() => pages.hits.get("/hang") === 1, "the page is being loaded");
    Deno.kill(pid, "SIGKILL");
    const error = await inFlight;
    assert.equal(error.status, 503);
    assert.equal(error.code, "upstream_unavailable");
    assert.equal(error.headers["Retry-After"], "1");
    const result = await capturer.capture(job(`${pages.origin}/`));
    assert.equal(result.targetStatus, 200);
  } finally {
    await capturer.close();
    await pages.close();
  }
});

Deno.test("close() ends every Chromium process and removes the temporary profile", async () => {
  const pages = servePages();
  const { capturer } = loopbackCapturer();
  let pid: number | undefined;
  try {
    await capturer.capture(job(`${pages.origin}/`));
    pid = capturer.browserPid();
    assert.ok(pid && processAlive(pid));
    assert.equal((await ownProfiles()).length, 1);
  } finally {
    await capturer.close();
    await pages.close();
  }
  assert.equal(processAlive(pid!), false);
  assert.deepEqual(childrenOf(Deno.pid).filter((p) => /chrom/i.test(p)), []);
  assert.deepEqual(await ownProfiles(), []);
  assert.equal(capturer.status()[0].state, "down");
});

Deno.test("close() does not wait for a context still being opened when the browser goes", async () => {
  const pages = servePages();
  // Once set, a context being prepared never finishes opening (as when the browser closes
  // under it and a CDP call waits out the protocol timeout).
  let wedged = false;
  const openContext: ContextOpener = (browser, session) =>
    wedged ? new Promise(() => {}) : openSessionContext(browser, session);
  const capturer = createChromiumCapturer({
    timeoutMs: 10_000,
    allowPrivateNetwork: true,
    log: createMemoryLogger(),
    openContext,
  });
  try {
    await capturer.capture(job(`${pages.origin}/`));
    wedged = true;
    // Served by a context prepared before; its replacement is the one that never opens.
    await capturer.capture(job(`${pages.origin}/`));
  } finally {
    await within(capturer.close(), 15_000, "close() with a context still opening");
    await pages.close();
  }
  assert.deepEqual(childrenOf(Deno.pid).filter((p) => /chrom/i.test(p)), []);
});

/** Command names of the live child processes of `parent`. */
function childrenOf(parent: number): string[] {
  return processes().filter(([, ppid]) => ppid === parent).map(([, , command]) => command);
}
