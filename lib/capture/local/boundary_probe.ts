/**
 * The boundary self-test, run on every browser (re)start before the backend is ready. The
 * network boundary depends on how this Chromium applies a context's proxy and reports proxy
 * errors, which has changed between versions; so instead of trusting the version, each new
 * browser proves it: a context opened exactly as captures open theirs must load a canary page
 * through an egress proxy, have its forbidden subresources refused by that proxy, and report
 * refusals and failures with the classification the API relies on. Any failure keeps the
 * backend down: captures answer 503 rather than run behind an unchecked boundary.
 */
import type { Browser, Page } from "puppeteer-core";
import type { ApiError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { BackendDownError, captureFailure } from "../failures.ts";
import { createEgressProxy, type EgressSession } from "../../egress/proxy.ts";
import { render } from "../page/render.ts";
import { type ContextOpener, openSessionContext } from "./context_pool.ts";

/** How every self-test failure message starts. */
const SELF_TEST_FAILED = "boundary self-test failed: ";

/**
 * Raised when the browser fails the self-test. Its message is our own fixed text (no address,
 * no browser output), so it is safe for logs and for the public /healthz.
 */
export class BoundarySelfTestError extends BackendDownError {
  constructor(reason: string) {
    super(`${SELF_TEST_FAILED}${reason}`);
    this.name = "BoundarySelfTestError";
  }
}

// Only a label: inside the self-test's own proxy the dialer maps it to the canary server, and
// that proxy dials nothing else, so no packet leaves the machine.
const CANARY_ADDRESS = "1.2.3.4";
// Every step is local; a browser that needs longer than this is not fit to capture anyway.
const STEP_TIMEOUT_MS = 5_000;
// A step that timed out proved nothing about the boundary (twenty redirect hops took longer
// than STEP_TIMEOUT_MS at load 30 on two cores): it is tried once more with this bound.
const LOADED_STEP_TIMEOUT_MS = 20_000;

/**
 * The oldest Chromium whose boundary behaviour was tested (docs/capture.md). Older ones may
 * route or report proxy errors differently; the self-test, not this number, decides.
 */
export const MIN_TESTED_CHROMIUM = 156;

/** Logs a warning naming both versions when `version` ("HeadlessChrome/150.0...") is older. */
export function warnIfUntested(version: string, log: Logger): void {
  const major = Number(/\/(\d+)\./.exec(version)?.[1]);
  if (major >= MIN_TESTED_CHROMIUM) return;
  log.warn("browser older than the oldest tested", {
    version,
    minimum: MIN_TESTED_CHROMIUM,
    advice: "the boundary self-test decides whether captures are served; upgrade Chromium",
  });
}

/** Where the canary answers and what it has been asked for. */
interface Canary {
  port: number;
  served: string;
  forbiddenName: string;
  missingName: string;
  hits: string[];
  close(): Promise<void>;
}

export interface SelfTestOptions {
  browser: Browser;
  log: Logger;
  /** How captures open their contexts; the self-test must open its own the same way. */
  openContext?: ContextOpener;
}

/** Runs the self-test against `browser`; throws BoundarySelfTestError naming the first failure. */
export async function runBoundarySelfTest(options: SelfTestOptions): Promise<void> {
  const { browser, log } = options;
  const openContext = options.openContext ?? openSessionContext;
  const started = performance.now();
  const canary = startCanary();
  const proxy = createEgressProxy(
    {
      resolver: (host) => Promise.resolve(canaryResolve(canary, host)),
      // Strict whatever ALLOW_PRIVATE_NETWORK says: what is tested is the browser, not the policy.
      allowPrivateNetwork: false,
      dial: (address, port) => {
        if (address !== CANARY_ADDRESS || port !== canary.port) {
          return Promise.reject(new Error("the self-test dials only its canary"));
        }
        return Deno.connect({ hostname: "127.0.0.1", port: canary.port });
      },
      connectTimeoutMs: STEP_TIMEOUT_MS,
    },
    log,
    { counted: false },
  );
  const session = proxy.openSession();
  let closeContext = () => Promise.resolve();
  try {
    const { context, page } = await openContext(browser, session);
    closeContext = () => context.close().catch(() => {});
    await expectServedThroughProxy(page, session, canary);
    await expectClassified(page, session, canary);
    log.info("boundary self-test passed", { ms: Math.round(performance.now() - started) });
  } finally {
    await closeContext();
    session.close();
    proxy.close();
    await canary.close();
  }
}

/** (a) the proxy served the canary; (b) it refused both forbidden subresources. */
async function expectServedThroughProxy(page: Page, session: EgressSession, canary: Canary) {
  const url = `http://${canary.served}:${canary.port}/`;
  let status: number | undefined;
  try {
    const response = await page.goto(url, { waitUntil: "load", timeout: STEP_TIMEOUT_MS });
    status = response?.status();
  } catch (error) {
    throw new BoundarySelfTestError(
      `the canary page did not load through the egress proxy (${shortError(error)})`,
    );
  }
  if (status !== 200 || !canary.hits.includes("/")) {
    throw new BoundarySelfTestError(`the canary page answered ${status ?? "nothing"}`);
  }
  if (canary.hits.some((path) => path.startsWith("/forbidden"))) {
    throw new BoundarySelfTestError("a forbidden subresource went around the egress proxy");
  }
  for (const host of ["127.0.0.1", canary.forbiddenName]) {
    const refused = session.refusals.some((r) => r.host === host && r.kind === "forbidden_address");
    if (!refused) {
      const what = host === "127.0.0.1" ? "literal" : "name";
      throw new BoundarySelfTestError(`the egress proxy never refused the forbidden ${what}`);
    }
  }
}

/** One navigation that must fail, and the answer the API must give for it. */
interface FailureCase {
  what: string;
  url: string;
  status: number;
  code: ApiError["code"];
}

/**
 * (c) failures reach the service with the status and code the API answers with. The redirect
 * loop (twenty hops) runs on a second page of the same context, beside the others.
 */
async function expectClassified(page: Page, session: EgressSession, canary: Canary) {
  const origin = `${canary.served}:${canary.port}`;
  const forbidden = `${canary.forbiddenName}:${canary.port}`;
  const invalidUrl = { status: 400, code: "invalid_url" } as const;
  const upstreamFailed = { status: 500, code: "upstream_failed" } as const;
  const sequence: FailureCase[] = [
    {
      what: "a forbidden literal",
      url: `http://127.0.0.1:${canary.port}/forbidden`,
      ...invalidUrl,
    },
    { what: "a forbidden name", url: `http://${forbidden}/forbidden`, ...invalidUrl },
    { what: "a name that does not resolve", url: `http://${canary.missingName}/`, ...invalidUrl },
    { what: "a failed TLS handshake", url: `https://${origin}/`, ...upstreamFailed },
    { what: "a download", url: `http://${origin}/download`, ...upstreamFailed },
  ];
  const loop = { what: "a redirect loop", url: `http://${origin}/loop`, ...upstreamFailed };
  const second = await page.browserContext().newPage();
  try {
    await Promise.all([
      (async () => {
        for (const expected of sequence) await expectFailure(page, { session, canary, expected });
      })(),
      expectFailure(second, { session, canary, expected: loop }),
    ]);
  } finally {
    await second.close().catch(() => {});
  }
}

async function expectFailure(
  page: Page,
  { session, canary, expected }: { session: EgressSession; canary: Canary; expected: FailureCase },
): Promise<void> {
  let failure = await failureOf(page, { session, url: expected.url }, STEP_TIMEOUT_MS);
  if (failure?.code === "upstream_timeout" && expected.code !== "upstream_timeout") {
    failure = await failureOf(page, { session, url: expected.url }, LOADED_STEP_TIMEOUT_MS);
  }
  if (canary.hits.some((path) => path.startsWith("/forbidden"))) {
    throw new BoundarySelfTestError(`${expected.what} went around the egress proxy`);
  }
  if (failure?.status !== expected.status || failure.code !== expected.code) {
    const got = failure ? `${failure.status} ${failure.code}` : "a screenshot";
    throw new BoundarySelfTestError(
      `${expected.what} gave ${got} instead of ${expected.status} ${expected.code}`,
    );
  }
}

/** The API error a capture of `url` ends in within `timeoutMs`; null if it was shot. */
async function failureOf(
  page: Page,
  { session, url }: { session: EgressSession; url: string },
  timeoutMs: number,
): Promise<ApiError | null> {
  try {
    await render(page, { session, url, timeoutMs });
    return null;
  } catch (error) {
    return captureFailure(error, { url, timeoutMs, browserConnected: page.browser().connected });
  }
}

/** The canary's names resolve only here; every other name is unknown to the self-test. */
function canaryResolve(canary: Canary, host: string): string[] {
  if (host === canary.served) return [CANARY_ADDRESS];
  if (host === canary.forbiddenName) return ["127.0.0.1"];
  return [];
}

/** A loopback server for the canary page; names are random so no page can guess them. */
function startCanary(): Canary {
  const token = crypto.randomUUID().slice(0, 8);
  const hits: string[] = [];
  const canary = {
    served: `canary-${token}.shotline-self-test.invalid`,
    forbiddenName: `private-${token}.shotline-self-test.invalid`,
    missingName: `missing-${token}.shotline-self-test.invalid`,
    hits,
  };
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
  }, (request): Response => {
    const { pathname } = new URL(request.url);
    hits.push(pathname);
    if (pathname === "/loop") return Response.redirect(new URL("/loop", request.url), 302);
    if (pathname === "/download") {
      return new Response("not a page", {
        headers: {
          "content-type": "application/octet-stream",
          "content-disposition": "attachment",
        },
      });
    }
    if (pathname !== "/") return new Response("canary", { status: 404 });
    const port = server.addr.port;
    // Both subresources are forbidden: only a browser that asks the proxy has them refused.
    const html = `<!doctype html><title>canary</title>
      <img src="http://127.0.0.1:${port}/forbidden-literal.png">
      <img src="http://${canary.forbiddenName}:${port}/forbidden-name.png">`;
    return new Response(html, { headers: { "content-type": "text/html" } });
  });
  return { ...canary, port: server.addr.port, close: () => server.shutdown() };
}

/** Chromium's net error code, the only part of a browser error the reason may repeat. */
function shortError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /net::ERR_[A-Z0-9_]+/.exec(message)?.[0] ??
    (error instanceof Error ? error.name : "error");
}
