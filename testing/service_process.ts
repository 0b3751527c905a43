/**
 * The real service as a subprocess: `deno run main.ts` with an operator's environment, on a port
 * the kernel picks (PORT=0; the port is read from the "listening" log line), ready once
 * /healthz answers. Exposes the pid, the JSON log lines of stdout, signals and the exit status,
 * for tests of what only a whole process shows (signals, start-up, shutdown).
 */
import { LEAK_MARK_VAR } from "./fault_checks.ts";

const ROOT = new URL("../", import.meta.url);
// The same permissions as `deno task start`.
const PERMISSIONS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-sys",
  "--allow-ffi",
];
// Operator variables (docs/configuration.md) and proxies that must come from the test, never from our own shell.
const CONFIG_VARIABLES =
  /^(PORT|HOST|PUBLIC_BASE_URL|KV_PATH|UPSTASH_REDIS_REST_\w+|CACHE_TTL_SECONDS|CAPTURE_LINK_TTL_SECONDS|RATE_LIMIT_PER_MINUTE|TRUST_PROXY_HOPS|CHROME_PATH|BROWSER_WS_ENDPOINT|MAX_CONCURRENT_CAPTURES|CAPTURE_TIMEOUT_MS|ALLOW_PRIVATE_NETWORK|MAX_UPLOAD_BYTES|UPLOAD_TIMEOUT_MS|CACHE_ADMIN_TOKEN|METRICS_TOKEN|EGRESS_DENY_CIDRS|CAPTURE_BYTE_BUDGET|EGRESS_PROXY_LISTEN|EGRESS_PROXY_URL|S3_\w+|LOG_LEVEL|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy|DENO_CERT|OTEL_\w+)$/;
// Module loading, sharp's warm-up and the listener: seconds on a cold cache, far less when warm.
const READY_TIMEOUT_MS = 60_000;
// What stop() allows the service after SIGTERM before it kills it.
const STOP_TIMEOUT_MS = 30_000;

export type LogLine = Record<string, unknown> & { msg?: string; level?: string };

export interface ServiceProcess extends AsyncDisposable {
  readonly pid: number;
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  /** Value of LEAK_MARK_VAR in the environment of the service (and of its Chromium). */
  readonly mark: string;
  /** Every JSON line the service wrote to stdout so far. */
  readonly lines: LogLine[];
  /** stdout lines that were not JSON, and stderr (for failure messages). */
  readonly output: string[];
  /** The exit status, once the process has exited. */
  readonly status: Promise<Deno.CommandStatus>;
  /** The last 40 lines of its log and output, for failure messages. */
  describe(): string;
  /** Resolves with the first line (past or future) that matches; rejects after `timeoutMs`. */
  waitForLine(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  signal(signal: Deno.Signal): void;
  /** SIGTERM and wait for the exit (SIGKILL if it does not come); the exit status. */
  stop(): Promise<Deno.CommandStatus>;
}

export interface StartOptions {
  /** Permission flags instead of those of `deno task start` (e.g. Deno Deploy's set). */
  permissions?: string[];
  /** Paths hidden from the service (`--deny-read`). */
  denyRead?: string[];
}

// Port 9 (discard) on loopback: nothing listens, so a fetch is refused at once.
const CLOSED_LIST_URL = "http://127.0.0.1:9/filters.txt";

/** Starts main.ts with `env` (docs/configuration.md) on 127.0.0.1 and waits until /healthz answers. */
export async function startService(
  env: Record<string, string>,
  options: StartOptions = {},
): Promise<ServiceProcess> {
  const mark = crypto.randomUUID();
  const inherited = Object.entries(Deno.env.toObject()).filter(([k]) => !CONFIG_VARIABLES.test(k));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...options.permissions ?? PERMISSIONS,
      // Hides paths from the service, e.g. the Chromium executables so it finds no local browser.
      ...(options.denyRead?.length ? [`--deny-read=${options.denyRead.join(",")}`] : []),
      "main.ts",
    ],
    cwd: ROOT,
    clearEnv: true,
    env: {
      ...Object.fromEntries(inherited),
      NO_COLOR: "1",
      // The Deno CLI's own version check goes to dl.deno.land (through HTTPS_PROXY when set):
      // a test talks to loopback only, and a boundary test counts that connection as a contact.
      DENO_NO_UPDATE_CHECK: "1",
      HOST: "127.0.0.1",
      PORT: "0",
      [LEAK_MARK_VAR]: mark,
      // The default filter lists are on the internet: a test talks to loopback only, so they
      // point at a closed loopback port unless the test serves its own.
      ADBLOCK_LIST_URLS: CLOSED_LIST_URL,
      ANNOYANCE_LIST_URLS: CLOSED_LIST_URL,
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  const lines: LogLine[] = [];
  const output: string[] = [];
  let exited = false;
  let ended: Deno.CommandStatus | null = null;
  interface Watcher {
    match: (line: LogLine) => boolean;
    settle: (line: LogLine | Error) => void;
  }
  let watchers: Watcher[] = [];
  const onLine = (text: string) => {
    let line: LogLine;
    try {
      line = JSON.parse(text);
    } catch {
      output.push(text);
      return;
    }
    lines.push(line);
    for (const watcher of watchers.filter((w) => w.match(line))) watcher.settle(line);
  };
  const reading = Promise.all([
    readLines(child.stdout, onLine),
    readLines(child.stderr, (text) => output.push(text)),
  ]);
  const status = child.status.then(async (status) => {
    await reading;
    exited = true;
    ended = status;
    const error = new Error(`the service exited with code ${status.code}:\n${describe()}`);
    for (const watcher of watchers) watcher.settle(error);
    return status;
  });

  const waitForLine = (match: (line: LogLine) => boolean, timeoutMs = READY_TIMEOUT_MS) => {
    const seen = lines.find(match);
    if (seen) return Promise.resolve(seen);
    if (exited) return Promise.reject(new Error(`the service has exited:\n${describe()}`));
    return new Promise<LogLine>((resolve, reject) => {
      const watcher: Watcher = {
        match,
        settle(result) {
          clearTimeout(timer);
          watchers = watchers.filter((w) => w !== watcher);
          if (result instanceof Error) reject(result);
          else resolve(result);
        },
      };
      const timer = setTimeout(
        () => watcher.settle(new Error(`no such log line within ${timeoutMs} ms:\n${describe()}`)),
        timeoutMs,
      );
      watchers.push(watcher);
    });
  };
  const describe = () => {
    const tail = [...lines.map((l) => JSON.stringify(l)), ...output].slice(-40);
    // A process killed by a signal (the kernel's OOM killer, a crash) writes nothing itself.
    const end = ended
      ? `[exited: code ${ended.code}${ended.signal ? `, signal ${ended.signal}` : ""}]`
      : "[still running]";
    return [...tail, end].join("\n");
  };
  const signal = (name: Deno.Signal) => {
    if (!exited) child.kill(name);
  };
  const stop = async () => {
    signal("SIGTERM");
    const timer = setTimeout(() => signal("SIGKILL"), STOP_TIMEOUT_MS);
    try {
      return await status;
    } finally {
      clearTimeout(timer);
    }
  };

  let port: number;
  try {
    const listening = await waitForLine((l) => l.msg === "listening");
    port = Number(listening.port);
    await untilHealthy(`http://127.0.0.1:${port}`, () => exited ? describe() : null);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    pid: child.pid,
    port,
    base: `http://127.0.0.1:${port}`,
    mark,
    lines,
    output,
    status,
    describe,
    waitForLine,
    signal,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

/** Polls /healthz until it answers 200; `exitReport` says why, if the process has died. */
async function untilHealthy(base: string, exitReport: () => string | null): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  for (;;) {
    const report = exitReport();
    if (report !== null) throw new Error(`the service exited before /healthz answered:\n${report}`);
    // No pooled keep-alive connection may outlive the poll (shutdown tests count connections).
    const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
    try {
      const res = await fetch(`${base}/healthz`, { client });
      await res.body?.cancel();
      if (res.status === 200) return;
    } catch {
      // Not accepting yet.
    } finally {
      client.close();
    }
    if (performance.now() > deadline) throw new Error(`${base}/healthz never answered 200`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    for (const part of parts) if (part.trim()) onLine(part);
  }
  if (rest.trim()) onLine(rest);
}
