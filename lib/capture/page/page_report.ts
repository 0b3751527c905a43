/**
 * The capture report's page side: listens to the page for the whole render (console errors,
 * uncaught exceptions, failed and blocked requests), takes the render's step times and the
 * waits that ran out, and assembles the report once the shot is taken. Who blocked a request is
 * decided only at the end: the boundary's refusals can be logged after Chromium reported the
 * failure.
 */
import type { ConsoleMessage, HTTPRequest, HTTPResponse, Page } from "puppeteer-core";
import { EGRESS_MARKER_HEADER, type EgressRefusal, type RefusalLog } from "../../egress/types.ts";
import { unbracket } from "../../egress/address.ts";
import {
  BLOCK_REASONS,
  type BlockReason,
  type CaptureReport,
  clipText,
  REPORT_FIRST_ENTRIES,
  REPORT_TEXT_CHARS,
  REPORT_URL_CHARS,
  type WaitName,
  wholeMs,
} from "../report.ts";
import type { BlockedBy } from "./adblock.ts";
import type { NetworkTracker } from "./network.ts";
import { decideFindings } from "./findings.ts";
import { type FindingSignals, readFindingSignals } from "./finding_signals.ts";

/** The render's steps, timed from the start of the render to each one's end. */
export type RenderStep = "navigation" | "settle" | "shot";

// Chromium's own cancellations (a navigation replacing a load, media preloads): no failure.
const CANCELLED = "net::ERR_ABORTED";
// An interception's abort("blockedbyclient"), as Chromium words it (".Inspector" appended).
const BLOCKED_BY_CLIENT = "net::ERR_BLOCKED_BY_CLIENT";
// Failed requests kept one by one for the end's attribution; past them (a page failing requests
// in a loop) only their reasons are counted, so the report's memory stays bounded.
const KEPT_REQUESTS = 1_000;

interface Sources {
  /** The boundary's refusals of this capture (proxy session or request guard). */
  refusals: RefusalLog;
  /** Which of the job's blockers dropped a request (adblock.ts, filtersFor). */
  blockedBy?: BlockedBy;
}

interface FailedRequest {
  url: string;
  /** The net error text, an `http_<status>`, or a blocker's reason. */
  reason: string;
  /** Blocked by the service, not failed. */
  blocked: boolean;
  /** "host:port", to find the boundary's word on it. */
  destination: string;
}

/** What startPageReport returns. */
export type PageReport = ReturnType<typeof startPageReport>;

/** Starts listening to `page`; `finish` assembles the report, `stop` ends the listening. */
export function startPageReport(page: Page, sources: Sources) {
  const started = performance.now();
  const steps: Partial<Record<RenderStep, number>> = {};
  const waits = new Set<WaitName>();
  const consoleFirst: CaptureReport["console"]["first"] = [];
  const counts = { errors: 0, exceptions: 0 };
  const requests: FailedRequest[] = [];
  const overflow = new Map<string, number>();
  const note = (request: FailedRequest) => {
    if (requests.length < KEPT_REQUESTS) requests.push(request);
    else overflow.set(request.reason, (overflow.get(request.reason) ?? 0) + 1);
  };
  let signals: FindingSignals | null = null;

  const noteConsole = (kind: "error" | "exception", text: string) => {
    counts[kind === "error" ? "errors" : "exceptions"]++;
    if (consoleFirst.length < REPORT_FIRST_ENTRIES) {
      consoleFirst.push({ kind, text: clipText(text, REPORT_TEXT_CHARS) });
    }
  };
  // Chromium's own log lines ("Failed to load resource") come without arguments: those are
  // the requests' business, not the page's console.error.
  const onConsole = (message: ConsoleMessage) => {
    if (message.type() === "error" && message.args().length > 0) {
      noteConsole("error", message.text());
    }
  };
  const onPageError = (error: unknown) => {
    noteConsole("exception", error instanceof Error ? error.message : String(error));
  };
  const onFailed = (request: HTTPRequest) => {
    const error = request.failure()?.errorText ?? "failed";
    if (error === CANCELLED || isDocumentOf(page, request) || isFavicon(request)) return;
    const by = error.startsWith(BLOCKED_BY_CLIENT) ? sources.blockedBy?.(request) : undefined;
    note({
      url: request.url(),
      reason: by ?? error,
      blocked: by !== undefined,
      destination: destinationOf(request.url()),
    });
  };
  const onResponse = (response: HTTPResponse) => {
    const request = response.request();
    if (response.status() < 400 || isDocumentOf(page, request) || isFavicon(request)) return;
    // An answer the egress proxy wrote itself (puppeteer lower-cases names) is not the
    // target's status: what the proxy ran into is read from its refusals at the end.
    const proxied = Boolean(response.headers()[EGRESS_MARKER_HEADER.toLowerCase()]);
    note({
      url: request.url(),
      reason: proxied ? "net::ERR_FAILED" : `http_${response.status()}`,
      blocked: false,
      destination: destinationOf(request.url()),
    });
  };
  page.on("console", onConsole);
  page.on("pageerror", onPageError);
  page.on("requestfailed", onFailed);
  page.on("response", onResponse);

  return {
    /** Marks the end of a step of the render (the last mark of a step counts). */
    mark(step: RenderStep): void {
      steps[step] = performance.now();
    },
    /** A wait of the render ran out of time. */
    ranOut(wait: WaitName): void {
      waits.add(wait);
    },
    /** The settle's network wait (network.ts, idle), noting when it ran out with loads pending. */
    timedIdle(network: NetworkTracker): (until: number) => Promise<boolean> {
      return async (until) => {
        const waited = await network.idle(until);
        if (network.painting()) waits.add("settle");
        return waited;
      };
    },
    /** Reads the page's finding signals (right before the shot); never throws. */
    async readSignals(): Promise<void> {
      signals = await readFindingSignals(page);
    },
    /** The report of the render, once its shot is taken. */
    finish(facts: { status: number | null; requestedUrl: string }): CaptureReport {
      const end = performance.now();
      const navigation = steps.navigation ?? end;
      const settle = steps.settle ?? navigation;
      const finalUrl = safeUrl(page);
      return {
        timings: {
          navigation: wholeMs(navigation - started),
          settle: wholeMs(settle - navigation),
          shot: wholeMs((steps.shot ?? end) - settle),
          encode: 0,
          total: wholeMs(end - started),
        },
        target: { status: facts.status, finalUrl },
        console: { ...counts, first: consoleFirst },
        requests: requestsOf(requests, { refusals: sources.refusals, overflow }),
        waits: [...waits],
        findings: decideFindings(signals, { ...facts, finalUrl }),
      };
    },
    stop(): void {
      page.off("console", onConsole);
      page.off("pageerror", onPageError);
      page.off("requestfailed", onFailed);
      page.off("response", onResponse);
    },
  };
}

/**
 * The requests part. A failure at a destination the boundary turned down is told by the
 * boundary's own reason: a forbidden address is its block; a failed lookup or connection is
 * named as Chromium names it when it connects itself (the proxy hides it behind its answer).
 */
function requestsOf(
  all: FailedRequest[],
  more: { refusals: RefusalLog; overflow: Map<string, number> },
): CaptureReport["requests"] {
  const refused = new Map<string, EgressRefusal>();
  for (const r of more.refusals.refusals) refused.set(`${unbracket(r.host)}:${r.port}`, r);
  const byReason: Record<string, number> = {};
  const first: CaptureReport["requests"]["first"] = [];
  let failed = 0, blocked = 0;
  for (const [reason, count] of more.overflow) {
    byReason[reason] = count;
    if ((BLOCK_REASONS as readonly string[]).includes(reason)) blocked += count;
    else failed += count;
  }
  for (const request of all) {
    const refusal = request.blocked ? undefined : refused.get(request.destination);
    const reason = refusal ? refusalReason(refusal) : request.reason;
    if (request.blocked || reason === "boundary") blocked++;
    else failed++;
    byReason[reason] = (byReason[reason] ?? 0) + 1;
    if (first.length < REPORT_FIRST_ENTRIES) {
      first.push({ url: clipText(request.url, REPORT_URL_CHARS), reason });
    }
  }
  return { failed, blocked, byReason, first };
}

function refusalReason(refusal: EgressRefusal): string {
  switch (refusal.kind) {
    case "forbidden_address":
      return "boundary" satisfies BlockReason;
    case "dns_failed":
    case "unresolvable":
      return "net::ERR_NAME_NOT_RESOLVED";
    case "connect_failed":
      return /refused/.test(refusal.detail)
        ? "net::ERR_CONNECTION_REFUSED"
        : /timed out/.test(refusal.detail)
        ? "net::ERR_CONNECTION_TIMED_OUT"
        : "net::ERR_CONNECTION_FAILED";
  }
}

/** The main frame's own document (a redirect hop included): the target, not a subresource. */
function isDocumentOf(page: Page, request: HTTPRequest): boolean {
  if (!request.isNavigationRequest()) return false;
  const frame = request.frame();
  return frame === null || frame === page.mainFrame() || !frame.parentFrame();
}

// Chromium asks for the icon itself; it never shows in a capture (network.ts leaves it out too).
function isFavicon(request: HTTPRequest): boolean {
  return request.resourceType() === "other" && request.url().endsWith("/favicon.ico");
}

/** "host:port" of a URL, the port the scheme's default when it names none. */
function destinationOf(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port ||
      (parsed.protocol === "https:" || parsed.protocol === "wss:" ? "443" : "80");
    return `${unbracket(parsed.hostname)}:${port}`;
  } catch {
    return "";
  }
}

function safeUrl(page: Page): string {
  try {
    return page.url();
  } catch {
    return "";
  }
}
