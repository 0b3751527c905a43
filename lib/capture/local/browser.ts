/**
 * The local Chromium: found, launched over a pipe with every request forced through the egress
 * proxy, relaunched when it dies, and closed with its temporary profile removed.
 */
import type { Browser } from "puppeteer-core";
import { loadPuppeteer } from "../puppeteer.ts";
import type { Logger } from "../../log.ts";
import { METRICS } from "../../telemetry/metrics.ts";

/** Where Debian, Ubuntu and Google's packages put the executable, in order of preference. */
export const CHROME_CANDIDATES = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

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
}

export interface BrowserHost {
  /** The running browser, launching one if needed; throws when none can start. */
  get(): Promise<Browser>;
  state(): { state: "ready" | "starting" | "down"; detail?: string };
  /** Process id of the running browser (for tests and diagnostics). */
  pid(): number | undefined;
  /** Kills the browser and removes its profile; `get()` fails afterwards. */
  close(): Promise<void>;
}

/** The executable to launch: CHROME_PATH if it exists, else the first candidate found. */
export function findChromium(chromePath?: string): { path: string } | { error: string } {
  if (chromePath) {
    if (!isFile(chromePath)) {
      return { error: `CHROME_PATH=${chromePath} does not exist or is not a file` };
    }
    // Why: spawning a file without execute permission fails with an EACCES 'error' event that
    // puppeteer (pipe mode) does not listen for, and that uncaught error ends the whole service.
    return isExecutable(chromePath)
      ? { path: chromePath }
      : { error: `CHROME_PATH=${chromePath} is not executable` };
  }
  const found = CHROME_CANDIDATES.find((path) => isFile(path) && isExecutable(path));
  return found
    ? { path: found }
    : { error: `no Chromium found at ${CHROME_CANDIDATES.join(", ")}` };
}

/** A host that launches lazily on `get()` and relaunches in the background after a crash. */
export function createBrowserHost(options: BrowserHostOptions): BrowserHost {
  const { log } = options;
  let current: Browser | null = null;
  let launching: Promise<Browser> | null = null;
  let lastFailure: { at: number; error: Error } | null = null;
  let closed = false;
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
      throw new Error(`run permission for ${executable.path} is not granted (--allow-run)`);
    }
    const profile = await Deno.makeTempDir({ prefix: `${PROFILE_PREFIX}${Deno.pid}-` });
    const started = performance.now();
    let browser: Browser;
    try {
      const puppeteer = await loadPuppeteer();
      browser = await puppeteer.launch({
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
        args: launchArgs(options.proxyUrl()),
      });
    } catch (error) {
      await removeProfile(profile, log);
      throw error;
    }
    const pid = browser.process()?.pid;
    METRICS.browserStarts.inc({ backend: "chromium-local" });
    log.info("browser launched", {
      executable: executable.path,
      pid,
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
      return { state: "down", detail: lastFailure?.error.message ?? "not started" };
    },
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

/** Puppeteer's defaults plus ours; `--proxy-bypass-list=<-loopback>` stops the loopback exemption. */
function launchArgs(proxyUrl: string): string[] {
  return [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    // Containers run us as root, where Chromium's sandbox cannot start.
    "--no-sandbox",
    // Every request, loopback included, goes through the egress proxy (the network boundary).
    `--proxy-server=${proxyUrl}`,
    "--proxy-bypass-list=<-loopback>",
    // UDP cannot go through an HTTP proxy: no WebRTC to arbitrary addresses, no QUIC.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-quic",
  ];
}

/** Resolves once the browser process is gone (at once if it already is). */
function exited(browser: Browser): Promise<void> {
  const process = browser.process();
  if (!process || process.exitCode !== null || process.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => process.once("exit", () => resolve()));
}

async function removeProfile(dir: string, log: Logger): Promise<void> {
  // Chromium may still be flushing when it exits; a couple of retries cover that race.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await Deno.remove(dir, { recursive: true });
      return;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      if (attempt === 2) log.warn("could not remove browser profile", { dir, error });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Any execute bit (a finer check would need access(2)); no mode bits (Windows) counts as yes. */
function isExecutable(path: string): boolean {
  try {
    const { mode } = Deno.statSync(path);
    return mode === null || (mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
