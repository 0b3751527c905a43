/**
 * Turns what went wrong in a capture into the API's errors, so a target that cannot be loaded
 * is answered with an envelope that says why, never with a picture of Chromium's error page.
 */
import { ApiError } from "../../errors.ts";
import { TimeoutError as BoundTimeoutError } from "../../timeout.ts";
import type { EgressRefusal } from "../../egress/types.ts";

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

/** 503 when no browser can run; the hint names the three ways to provide one. */
export function browserUnavailable(): ApiError {
  return new ApiError(503, "upstream_unavailable", "No browser is available to render the page.", {
    hint: "The operator must install Chromium (apt-get install chromium), set CHROME_PATH to a " +
      "Chrome or Chromium executable, or set BROWSER_WS_ENDPOINT to a remote browser. " +
      "Retry after Retry-After seconds.",
    headers: { "Retry-After": "10" },
  });
}

/**
 * The one answer for every target that may not be reached: a name that does not resolve, one
 * that resolves to a private, loopback or metadata address, a forbidden literal. Anonymous
 * callers must not learn which (that would make the service a DNS and network scanner of our
 * side), so the reason is in `logDetail` only.
 */
export function notPubliclyReachable(logDetail: Record<string, unknown>): ApiError {
  return new ApiError(400, "invalid_url", "The URL's host is not publicly reachable.", {
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
      return new ApiError(500, "upstream_failed", "The DNS lookup of the target failed.", {
        hint: "The host name could not be looked up just now; retry later.",
        logDetail: { refusal: { host, port, kind, detail } },
      });
    case "connect_failed":
      return new ApiError(500, "upstream_failed", "The target could not be reached.", {
        hint: `Connecting to ${host}:${port} failed: ${detail}. Check that the site is up and ` +
          "reachable from the public internet.",
      });
  }
}

/** Chromium's net error codes, grouped by what the user can do about them. */
function netErrorFailure(code: string, url: string): ApiError {
  const host = hostOf(url);
  if (code === "ERR_NAME_NOT_RESOLVED") {
    return refusalError({ host, port: 0, kind: "unresolvable", detail: code });
  }
  if (code === "ERR_UNSAFE_PORT") {
    return new ApiError(400, "invalid_url", "The URL's port is blocked by the browser.", {
      hint: "Browsers refuse ports of other protocols (mail, ssh...); use the site's web port.",
    });
  }
  const failed = (what: string, hint: string) =>
    new ApiError(500, "upstream_failed", what, { hint: `${hint} (${code})` });
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
 * Maps a failure during navigation or rendering. A destination the proxy refused is already an
 * ApiError here: render.ts matches refusals to the hosts the page navigated to.
 */
export function captureFailure(
  error: unknown,
  context: {
    url: string;
    timeoutMs: number;
    browserConnected: boolean;
    /** The answer when the browser went away (default: it is being relaunched). */
    disconnected?: () => ApiError;
  },
): ApiError {
  if (error instanceof ApiError) return error;
  // Whatever the message says, a browser that went away is why the capture failed.
  if (!context.browserConnected) return context.disconnected?.() ?? browserRestarted();
  const message = error instanceof Error ? error.message : String(error);
  const netCode = /net::(ERR_[A-Z0-9_]+)/.exec(message)?.[1];
  if (isPuppeteerTimeout(error)) {
    return new ApiError(408, "upstream_timeout", "The page did not load in time.", {
      hint: `The target did not deliver its document within ${context.timeoutMs} ms; ` +
        "try again later or try a lighter page.",
    });
  }
  if (netCode) return netErrorFailure(netCode, context.url);
  if (/crash/i.test(message)) {
    return new ApiError(500, "upstream_failed", "The page crashed the browser tab.", {
      hint: "The target made its renderer crash (often memory); a retry may work.",
    });
  }
  return new ApiError(500, "upstream_failed", "The page could not be captured.", {
    hint: "The browser failed while rendering the target; retry once.",
  });
}

/** 503 when the local browser went away during the capture; it is relaunched at once. */
function browserRestarted(): ApiError {
  return new ApiError(503, "upstream_unavailable", "The browser restarted during the capture.", {
    hint: "The browser is being relaunched; retry after Retry-After seconds.",
    headers: { "Retry-After": "1" },
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** puppeteer's TimeoutError, known by name because puppeteer-core is loaded lazily. */
export function isPuppeteerTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError" &&
    !(error instanceof BoundTimeoutError);
}
