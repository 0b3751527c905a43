/**
 * The local Chromium: found, launched over a pipe with every request forced through the egress
 * proxy, relaunched when it dies, and closed with its temporary profile removed.
 */
import type { Browser } from "puppeteer-core";
import { loadPuppeteer } from "../page/puppeteer.ts";
import type { Logger } from "../../log.ts";
import { METRICS } from "../../telemetry/metrics.ts";
import {
  browserEnvironment,
  findChromium,
  launchArgs,
  sandboxPlan,
  type SandboxProbe,
  writeProfilePreferences,
} from "./launch.ts";
import { BackendDownError } from "../failures.ts";
import { removeProfile } from "./profile.ts";

export { CHROME_CANDIDATES, findChromium } from "./launch.ts";

/** Temporary profiles are named after the owning process, so a leftover can be traced. */
export const PROFILE_PREFIX = "shotline-chromium-";

// A launch that has not produced a browser by then will not (measured: 0.45 s when healthy).
const LAUNCH_TIMEOUT_MS = 20_000;
// Bounds every CDP call, so a wedged browser cannot hang a capture forever.
const PROTOCOL_TIMEOUT_MS = 45_000;
// After a failed launch, captures fail fast for this long instead of retrying on every request.
const LAUNCH_RETRY_MS = 10_000;
// Graceful Browser.close gets this long before the process is killed.
const CLOSE_TIMEOUT_MS = 5_000;

export interface BrowserHostOptions {
  /** CHROME_PATH; auto-detected from CHROME_CANDIDATES when absent. */
  chromePath?: string;
  /** The egress proxy every browser-level request uses (contexts get their own session). */
  proxyUrl(): string;
  log: Logger;
  /** Called with each new browser, and with null when the current one is lost. */
  onBrowser(browser: Browser | null): void;
  /**
   * Runs on each launched browser before it is used; a rejection closes that browser and keeps
   * the backend down with the rejection's message (the boundary self-test).
   */
  verify?(browser: Browser): Promise<void>;
  /** What the sandbox decision looks at (test seam; this process and /proc by default). */
  sandboxProbe?: SandboxProbe;
}

export interface BrowserHost {
  /** The running browser, launching one if needed; throws when none can start. */
  get(): Promise<Browser>;
  state(): { state: "ready" | "starting" | "down"; detail?: string; reason?: string };
  /** Whether the running (or last) browser has Chromium's sandbox; null before a launch. */
  sandboxed(): boolean | null;
  /** Process id of the running browser (for tests and diagnostics). */
  pid(): number | undefined;
  /** Kills the browser and removes its profile; `get()` fails afterwards. */
  close(): Promise<void>;
}

/** A host that launches lazily on `get()` and relaunches in the background after a crash. */
export function createBrowserHost(options: BrowserHostOptions): BrowserHost {
  const { log } = options;
  let current: Browser | null = null;
  let launching: Promise<Browser> | null = null;
  let lastFailure: { at: number; error: Error } | null = null;
  let closed = false;
  // Decided at the first launch: the sandbox is tried where it can work, and dropped (with one
  // warning) where it does not start, so every later launch goes straight to what works.
  let sandboxed: boolean | null = null;
  const withoutSandbox = (reason: string) => {
    sandboxed = false;
    log.warn("Chromium runs WITHOUT its sandbox: a renderer exploit would reach this process", {
      reason,
    });
  };
  // Profile removals under way, awaited by close() so nothing is left behind.
  const cleanups = new Set<Promise<void>>();
  const cleanUpAfter = (browser: Browser, profile: string) => {
    const cleanup = exited(browser).then(() => removeProfile(profile, log));
    cleanups.add(cleanup);
    void cleanup.finally(() => cleanups.delete(cleanup));
  };

  const launchOnce = async (): Promise<Browser> => {
    const executable = findChromium(options.chromePath);
    if ("error" in executable) throw new Error(executable.error);
    // Why: puppeteer spawns without listening for the spawn error, so a denied --allow-run
    // (Deno Deploy, `--deny-run`) would surface as an uncaught NotCapable and end the service.
    const run = await Deno.permissions.query({ name: "run", command: executable.path });
    if (run.state !== "granted") {
      // No path in the message: it is shown on the public /healthz.
      throw new BackendDownError("run permission for Chromium is not granted (--allow-run)");
    }
    const started = performance.now();
    // Loaded before the profile is made: a failure here must not leave an empty profile behind.
    const puppeteer = await loadPuppeteer();
    const profile = await Deno.makeTempDir({ prefix: `${PROFILE_PREFIX}${Deno.pid}-` });
    const launch = (sandbox: boolean) =>
      puppeteer.launch({
        executablePath: executable.path,
        userDataDir: profile,
        // A pipe, not a WebSocket: Chromium then exits with us even if we are SIGKILLed.
        pipe: true,
        headless: true,
        // The service handles signals itself and closes the browser on shutdown.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: LAUNCH_TIMEOUT_MS,
        protocolTimeout: PROTOCOL_TIMEOUT_MS,
        defaultViewport: null,
        args: launchArgs({ proxyUrl: options.proxyUrl(), sandbox }),
        env: browserEnvironment(environment(), Deno.pid),
      });
    let browser: Browser;
    try {
      await writeProfilePreferences(profile);
      if (sandboxed === null) {
        const plan = sandboxPlan(options.sandboxProbe);
        if (plan.sandbox) sandboxed = true;
        else withoutSandbox(plan.reason);
      }
      try {
        browser = await launch(sandboxed === true);
      } catch (error) {
        if (sandboxed !== true) throw error;
        // Typically "No usable sandbox!": user namespaces are blocked (a default seccomp profile).
        withoutSandbox(`the sandbox did not start: ${asError(error).message.slice(0, 200)}`);
        browser = await launch(false);
      }
    } catch (error) {
      await removeProfile(profile, log);
      throw error;
    }
    const pid = browser.process()?.pid;
    METRICS.browserStarts.inc({ backend: "chromium-local" });
    log.info("browser launched", {
      executable: executable.path,
      pid,
      sandbox: sandboxed,
      ms: Math.round(performance.now() - started),
    });
    browser.once("disconnected", () => {
      cleanUpAfter(browser, profile);
      if (current !== browser) return;
      current = null;
      options.onBrowser(null);
      if (closed) return;
      METRICS.browserLosses.inc({ backend: "chromium-local" });
      log.warn("browser disconnected; relaunching", { pid });
      // Relaunch now so the next request finds a warm browser; failures surface on get().
      get().catch(() => {});
    });
    return browser;
  };

  const launchVerified = async (): Promise<Browser> => {
    const browser = await launchOnce();
    try {
      await options.verify?.(browser);
    } catch (error) {
      await browser.close().catch(() => {});
      throw error;
    }
    return browser;
  };

  const get = (): Promise<Browser> => {
    if (closed) return Promise.reject(new Error("the capture backend is shut down"));
    if (current?.connected) return Promise.resolve(current);
    if (launching) return launching;
    if (lastFailure && performance.now() - lastFailure.at < LAUNCH_RETRY_MS) {
      return Promise.reject(lastFailure.error);
    }
    launching = launchVerified().then(async (browser) => {
      lastFailure = null;
      if (closed) {
        // Shut down while launching: close() waits for this, then for the profile removal.
        await browser.close().catch(() => {});
        throw new Error("the capture backend is shut down");
      }
      current = browser;
      options.onBrowser(browser);
      return browser;
    }, (error) => {
      lastFailure = { at: performance.now(), error: asError(error) };
      log.error("browser launch failed", { error: lastFailure.error.message });
      throw lastFailure.error;
    }).finally(() => {
      launching = null;
    });
    return launching;
  };

  return {
    get,
    state() {
      if (current?.connected) return { state: "ready" };
      if (launching) return { state: "starting" };
      const error = lastFailure?.error;
      const reason = error instanceof BackendDownError ? { reason: error.message } : {};
      return { state: "down", detail: error?.message ?? "not started", ...reason };
    },
    sandboxed: () => sandboxed,
    pid: () => current?.process()?.pid,
    async close() {
      closed = true;
      await launching?.catch(() => {});
      const browser = current;
      current = null;
      if (browser) {
        const process = browser.process();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const graceful = browser.close().then(() => true, () => false);
        const timedOut = new Promise<false>((r) =>
          timer = setTimeout(() => r(false), CLOSE_TIMEOUT_MS)
        );
        if (!await Promise.race([graceful, timedOut])) process?.kill("SIGKILL");
        clearTimeout(timer);
        await exited(browser);
      }
      await Promise.all([...cleanups]);
    },
  };
}

/** Resolves once the browser process is gone (at once if it already is). */
function exited(browser: Browser): Promise<void> {
  const process = browser.process();
  if (!process || process.exitCode !== null || process.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => process.once("exit", () => resolve()));
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Our environment, or nothing where we may not read it (the browser then gets only the tag). */
function environment(): Record<string, string> {
  try {
    return Deno.env.toObject();
  } catch {
    return {};
  }
}
