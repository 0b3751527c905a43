/**
 * Turns what went wrong in a capture into the API's errors, so a target that cannot be loaded
 * is answered with an envelope that says why, never with a picture of Chromium's error page.
 */
import {
  ApiError,
  invalidRequest,
  invalidUrl,
  upstreamFailed,
  upstreamTimeout,
  upstreamUnavailable,
} from "../errors.ts";
import { type EgressRefusal, RefusedDestination } from "../egress/types.ts";
import { PageFailure, type PageFailureDetail } from "./page/page_failure.ts";
import { isPuppeteerTimeout } from "./page/puppeteer.ts";
import { ExportFailure } from "../codecs/errors.ts";
import { exportFailureError } from "../codecs/failures.ts";
import { RequestFailure, type RequestFailureDetail } from "./request/request_failure.ts";
import type { Logger } from "../log.ts";
import { redactUrls } from "./request/log_target.ts";
import { type BackendGone, CaptureFailure } from "./types.ts";

/**
 * Why a backend cannot run, in our own fixed words (no address, no browser output), so it may
 * be shown on the public /healthz: a missing permission or executable, a failed self-test.
 */
export class BackendDownError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackendDownError";
  }
}

/** 503 when no remote browser is connected or reachable. */
function remoteUnavailable(retryAfter: number): ApiError {
  return upstreamUnavailable("No remote browser is reachable.", {
    hint: "The browsers of BROWSER_WS_ENDPOINT do not answer; the service keeps reconnecting. " +
      "Retry after Retry-After seconds.",
    headers: { "Retry-After": String(retryAfter) },
  });
}

/** 503 when the connection to the remote browser dropped during the capture. */
function remoteLost(retryAfterS: number): ApiError {
  return upstreamUnavailable("The remote browser went away during the capture.", {
    hint: "The connection to the remote browser dropped; the service is reconnecting. " +
      "Retry after Retry-After seconds.",
    headers: { "Retry-After": String(retryAfterS) },
  });
}

/** 503 when no browser can run; the hint names the three ways to provide one. */
function browserUnavailable(retryAfterS: number): ApiError {
  return upstreamUnavailable("No browser is available to render the page.", {
    hint: "The operator must install Chromium (apt-get install chromium), set CHROME_PATH to a " +
      "Chrome or Chromium executable, or set BROWSER_WS_ENDPOINT to a remote browser. " +
      "Retry after Retry-After seconds.",
    headers: { "Retry-After": String(retryAfterS) },
  });
}

/**
 * The one answer for every target that may not be reached: a name that does not resolve, one
 * that resolves to a private, loopback or metadata address, a forbidden literal. Anonymous
 * callers must not learn which (that would make the service a DNS and network scanner of our
 * side), so the reason is in `logDetail` only.
 */
export function notPubliclyReachable(logDetail: Record<string, unknown>): ApiError {
  return invalidUrl("The URL's host is not publicly reachable.", {
    hint: "Only pages on the public internet can be captured (the page and every redirect it " +
      "follows); check the host name.",
    logDetail,
  });
}

/** The error for a destination the egress proxy refused or could not reach. */
export function refusalError(refusal: EgressRefusal): ApiError {
  const { host, port, kind, detail } = refusal;
  switch (kind) {
    case "forbidden_address":
    case "unresolvable":
      return notPubliclyReachable({ refusal: { host, port, kind, detail } });
    case "dns_failed":
      return upstreamFailed("The DNS lookup of the target failed.", {
        hint: "The host name could not be looked up just now; retry later.",
        logDetail: { refusal: { host, port, kind, detail } },
      });
    case "connect_failed":
      return upstreamFailed("The target could not be reached.", {
        hint: `Connecting to ${host}:${port} failed: ${detail}. Check that the site is up and ` +
          "reachable from the public internet.",
      });
  }
}

/** The answer for each way a page can fail (page_failure.ts). */
function pageFailureError(detail: PageFailureDetail): ApiError {
  switch (detail.kind) {
    case "invalid_selector":
      return invalidRequest("A selector is not valid CSS.", {
        hint: `"${detail.selector}" is not a CSS selector the browser accepts (as in ` +
          "document.querySelector).",
      });
    case "no_element":
      return invalidRequest("No visible element matches selector.", {
        hint: `Nothing on the page matched "${detail.selector}" with a non-empty box once the ` +
          "page was ready; check the selector, or add waitForSelector for content that appears late.",
      });
    case "element_timeout":
      return upstreamTimeout("The awaited element did not appear in time.", {
        hint: `No visible element matched "${detail.selector}" within the capture budget ` +
          "(CAPTURE_TIMEOUT_MS); check the selector, or capture without waitForSelector.",
      });
    case "no_paint":
      return upstreamTimeout("The page did not paint in time.", {
        hint: "The target kept the browser busy (a script that never yields); try again later.",
      });
    case "recording_timeout":
      return upstreamTimeout("The recording did not finish in time.", {
        hint: "Taking every frame of the recording outlasted the capture budget (a slow or busy " +
          "page); try a shorter durationMs or a lower fps.",
      });
    case "read_timeout":
      return upstreamTimeout("The page's content could not be read in time.", {
        hint: "The target kept the browser busy (a script that never yields), or its document " +
          "is very large; try again later, or ask for an image.",
      });
    case "encoder_unavailable": {
      const what = detail.missing === "ffmpeg" ? "ffmpeg" : `ffmpeg's ${detail.missing} encoder`;
      return upstreamUnavailable(
        `A ${detail.format} recording needs ${what}, which this server lacks.`,
        {
          hint: "Ask for an image, a PDF or Markdown instead. Operators: install ffmpeg (Debian: " +
            "apt-get install ffmpeg) or point FFMPEG_PATH at one with the encoder.",
        },
      );
    }
    case "error_page":
      // What Chromium's net error for a failed load would say (the code is not known here).
      return netErrorFailure("ERR_FAILED", detail.url);
    case "nothing_to_click":
      return invalidRequest("No visible element matches clickSelector.", {
        hint: `Nothing on the page matched "${detail.selector}" with a visible box once the ` +
          "page was ready; check the selector, or add waitForSelector for content that appears late.",
      });
    case "script_error":
      return invalidRequest(`scripts[${detail.index}] threw in the page.`, {
        hint: `The page said: ${detail.message}. Fix the script (it runs in the page's main ` +
          "frame after load, like the DevTools console), or capture without it.",
      });
    case "script_timeout":
      return upstreamTimeout(`scripts[${detail.index}] did not finish in time.`, {
        hint: "The script (or the promise it returned) was still running when the capture " +
          "budget (CAPTURE_TIMEOUT_MS) ran out; make it finish sooner, or resolve its promise.",
      });
    case "filters_unavailable":
      return detail.lists === "ads"
        ? upstreamUnavailable("The ad filter lists are not loaded.", {
          hint: "blockAds needs the filter lists of ADBLOCK_LIST_URLS, which this instance has " +
            "not been able to load yet; retry later, or capture without blockAds.",
          headers: { "Retry-After": "30" },
        })
        : upstreamUnavailable("The annoyance filter lists are not loaded.", {
          hint: "hideAnnoyances needs the filter lists of ANNOYANCE_LIST_URLS, which this " +
            "instance has not been able to load yet; retry later, or capture without " +
            "hideAnnoyances.",
          headers: { "Retry-After": "30" },
        });
  }
}

/**
 * The answer for a typed capture failure that needs no context (a refused destination, a page
 * failure), wherever it surfaces: inside a capture, or in a route that checks an option up front.
 */
export function typedFailureError(error: unknown): ApiError | undefined {
  if (error instanceof RefusedDestination) return refusalError(error.refusal);
  if (error instanceof PageFailure) return pageFailureError(error.detail);
  if (error instanceof RequestFailure) return requestFailureError(error.detail);
  // A full page re-encoded to jpeg or webp meets the export codecs (transcode.ts).
  if (error instanceof ExportFailure) return exportFailureError(error);
  return undefined;
}

/**
 * `fn` with its typed failures thrown as the API's errors: how the capability's functions that a
 * route calls directly (lib/capture/mod.ts) answer, so the route sees their log detail too.
 */
export function answering<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const answer = (error: unknown) => {
    throw typedFailureError(error) ?? error;
  };
  return (...args: A) => {
    try {
      const result = fn(...args);
      // An async function's failure arrives as a rejection: mapped alike.
      return (result instanceof Promise ? result.catch(answer) : result) as R;
    } catch (error) {
      return answer(error);
    }
  };
}

/** The answer for each way a request can be wrong (request/request_failure.ts). */
function requestFailureError(detail: RequestFailureDetail): ApiError {
  switch (detail.kind) {
    case "invalid_url":
      return invalidUrl(detail.message, { hint: detail.hint });
    case "private_target":
      // The same answer as a name that resolves there.
      return notPubliclyReachable({ refusal: { host: detail.host, kind: "forbidden_literal" } });
    case "invalid_field":
      return invalidRequest(detail.message, { hint: detail.hint });
  }
}

/** Chromium's net error codes, grouped by what the user can do about them. */
function netErrorFailure(code: string, url: string): ApiError {
  const host = hostOf(url);
  if (code === "ERR_NAME_NOT_RESOLVED") {
    return refusalError({ host, port: 0, kind: "unresolvable", detail: code });
  }
  if (code === "ERR_UNSAFE_PORT") {
    return invalidUrl("The URL's port is blocked by the browser.", {
      hint: "Browsers refuse ports of other protocols (mail, ssh...); use the site's web port.",
    });
  }
  const failed = (what: string, hint: string) =>
    upstreamFailed(what, { hint: `${hint} (${code})` });
  if (/^ERR_(CERT_|SSL_|BAD_SSL|TLS)/.test(code)) {
    return failed(
      "The target's TLS connection failed.",
      `${host} did not complete a valid TLS handshake (bad or expired certificate, or not TLS)`,
    );
  }
  if (code === "ERR_ABORTED") {
    return failed(
      "The navigation was aborted.",
      "The target did not produce a page: it may be a file download, or it cancelled its load",
    );
  }
  if (code === "ERR_TOO_MANY_REDIRECTS") {
    return failed("The target redirects in a loop.", `${host} kept redirecting`);
  }
  if (/^ERR_(CONNECTION_|EMPTY_RESPONSE|TIMED_OUT|ADDRESS_UNREACHABLE|TUNNEL)/.test(code)) {
    return failed("The target could not be reached.", `The connection to ${host} failed`);
  }
  return failed("The target could not be loaded.", `Chromium could not load ${host}`);
}

/**
 * Maps a failure during navigation or rendering: the one place where what happened in a page
 * becomes a status, a code and a hint. A refused destination arrives as RefusedDestination
 * (render.ts matched it to the hosts the page navigated to), a page's own failure as PageFailure.
 */
export function captureFailure(
  error: unknown,
  context: {
    url: string;
    timeoutMs: number;
    browserConnected: boolean;
  },
): ApiError {
  if (error instanceof ApiError) return error;
  const typed = typedFailureError(error);
  if (typed) return typed;
  // Whatever the message says, a browser that went away is why the capture failed.
  if (!context.browserConnected) return browserRestarted(1);
  const message = error instanceof Error ? error.message : String(error);
  const netCode = /net::(ERR_[A-Z0-9_]+)/.exec(message)?.[1];
  if (isPuppeteerTimeout(error)) {
    return upstreamTimeout("The page did not load in time.", {
      hint: `The target did not deliver its document within ${context.timeoutMs} ms; ` +
        "try again later or try a lighter page.",
    });
  }
  if (netCode) return netErrorFailure(netCode, context.url);
  if (/crash/i.test(message)) {
    return upstreamFailed("The page crashed the browser tab.", {
      hint: "The target made its renderer crash (often memory); a retry may work.",
    });
  }
  return upstreamFailed("The page could not be captured.", {
    hint: "The browser failed while rendering the target; retry once.",
  });
}

/** 503 when the local browser went away during the capture; it is relaunched at once. */
function browserRestarted(retryAfterS: number): ApiError {
  return upstreamUnavailable("The browser restarted during the capture.", {
    hint: "The browser is being relaunched; retry after Retry-After seconds.",
    headers: { "Retry-After": String(retryAfterS) },
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export interface FailedCapture {
  url: string;
  /** CAPTURE_TIMEOUT_MS, named in the 408's hint. */
  timeoutMs: number;
  /** Backend name, for the log line. */
  backend: string;
  browserConnected: boolean;
  /** What a browser gone mid-capture means (each backend says how it recovers). */
  disconnected?: Extract<BackendGone, "remote_lost" | "browser_restarted">;
  log: Logger;
}

/**
 * What went wrong in a backend's capture as a CaptureFailure, logged once: backend, the status
 * and code it will be answered with, the browser's message with URLs reduced to their origin,
 * and the answer's own log detail (a refusal's reason).
 */
export function failedCapture(error: unknown, capture: FailedCapture): CaptureFailure {
  const failure = classified(error, capture);
  const answer = captureFailureError(failure);
  capture.log.info("capture failed", {
    backend: capture.backend,
    status: answer.status,
    code: answer.code,
    reason: redactUrls(error instanceof Error ? error.message : String(error)),
    ...answer.logDetail,
  });
  return failure;
}

/** A failure of the page or its target, as thrown (a typed failure or a browser error). */
export function pageFailed(
  error: unknown,
  context: { url: string; timeoutMs: number },
): CaptureFailure {
  if (error instanceof CaptureFailure) return error;
  return new CaptureFailure({
    kind: "page_failed",
    cause: error,
    ...context,
    timedOut: timedOut(error),
  });
}

function classified(error: unknown, capture: FailedCapture): CaptureFailure {
  if (error instanceof CaptureFailure) return error;
  // Whatever the message says, a browser that went away is why the capture failed; a failure
  // that says what happened (a typed one, an answer already made) still says it.
  const said = error instanceof ApiError || typedFailureError(error) !== undefined;
  if (!capture.browserConnected && !said) {
    const reason = capture.disconnected ?? "browser_restarted";
    return new CaptureFailure({ kind: "backend_unavailable", reason, retryAfterS: 1 });
  }
  return pageFailed(error, capture);
}

/** Whether the capture's own budget ran out (the page's load, an awaited element, its paint). */
function timedOut(error: unknown): boolean {
  if (error instanceof PageFailure) {
    return ["element_timeout", "no_paint", "recording_timeout", "read_timeout"]
      .includes(error.detail.kind);
  }
  return !(error instanceof ApiError) && typedFailureError(error) === undefined &&
    isPuppeteerTimeout(error);
}

/**
 * The one table from a capture's failure to the API's answer (status, code, hint, Retry-After),
 * applied once at the service's edge. The answer carries the failure as its `cause`, so whoever
 * holds the answer can still read what happened (CaptureFailure.beforeWork, say).
 */
export function captureFailureError(failure: CaptureFailure): ApiError {
  const answer = answerOf(failure);
  answer.cause = failure;
  return answer;
}

/** The 503 of one backend that cannot run the capture, by why. */
function unavailableError(reason: BackendGone, retryAfterS: number): ApiError {
  switch (reason) {
    case "no_browser":
      return browserUnavailable(retryAfterS);
    case "no_remote":
      return remoteUnavailable(retryAfterS);
    case "remote_lost":
      return remoteLost(retryAfterS);
    case "browser_restarted":
      return browserRestarted(retryAfterS);
  }
}

function answerOf(failure: CaptureFailure): ApiError {
  const { detail } = failure;
  switch (detail.kind) {
    case "backend_unavailable":
      return unavailableError(detail.reason, detail.retryAfterS);
    case "no_backend":
      return allBackendsDown(detail.retryAfterS);
    case "queue_full":
      return queueFullError(detail.retryAfterS);
    case "deadline":
      return hardTimeoutError(detail.ms);
    case "page_failed":
      return captureFailure(detail.cause, {
        url: detail.url,
        timeoutMs: detail.timeoutMs,
        browserConnected: true,
      });
  }
}

/** The answer to a request whose own client went away before its capture finished. */
export function cancelledError(): ApiError {
  return upstreamTimeout(
    "The request was cancelled before the capture " +
      "finished.",
    { hint: "Keep the connection open until the capture completes." },
  );
}

/** A target's error status, for failOnHttpError: the target's answer is what failed. */
export function targetStatusError(status: number): ApiError {
  return upstreamFailed(`The page answered with HTTP ${status}.`, {
    status: 502,
    hint: `The target's main document ended with status ${status} (failOnHttpError is on); ` +
      "check the URL, or send failOnHttpError: false to capture the page as a browser shows it.",
  });
}

/** The service's deadline passed: the capturer ignored its own timeouts. */
function hardTimeoutError(ms: number): ApiError {
  return upstreamTimeout(`The capture did not finish within ${ms} ms.`, {
    hint: "Try again later, or try a lighter page.",
  });
}

/** A backend failed in a way it did not map itself (logged by the service). */
export function renderFailedError(): ApiError {
  return upstreamFailed("The screenshot could not be produced.", {
    hint: "Check that the page loads in a browser, then retry.",
  });
}

/** The 503 of a queue that could not finish another render within the budget. */
function queueFullError(retryAfterS: number): ApiError {
  return upstreamUnavailable("Too many captures are in progress.", {
    hint: `Wait ${retryAfterS} seconds and retry; the capture queue is full for now.`,
    headers: { "Retry-After": String(retryAfterS) },
  });
}

/** The 503 when every backend is down: the soonest any of them may be back is the wait. */
function allBackendsDown(retryAfterS: number): ApiError {
  return upstreamUnavailable("No browser is available to render the page.", {
    hint: "Every capture backend is down: the local Chromium and the remote browsers of " +
      "BROWSER_WS_ENDPOINT (GET /healthz shows each one's state). " +
      "Retry after Retry-After seconds.",
    headers: { "Retry-After": String(retryAfterS) },
  });
}
