/** The capture contract shared by the browser backends and the screenshot service. */
import type { CaptureOptions } from "./request/options.ts";
import type { OutputFacts, OutputFormat } from "./request/output.ts";
import type { Credentials } from "./request/credentials.ts";
import type { ColorScheme, DeviceType } from "./request/devices.ts";
import type { CaptureReport } from "./report.ts";

// Defined with the named devices (request/ never imports this module); shared from here.
export {
  COLOR_SCHEMES,
  type ColorScheme,
  DEVICE_TYPES,
  type DeviceType,
  VIEWPORTS,
} from "./request/devices.ts";

/**
 * One render: `url` is already validated and normalised (lib/capture/request/target_url.ts), or
 * "about:blank" when the job renders `html` instead.
 */
export interface CaptureJob {
  url: string;
  /** A document to render instead of loading `url` (which is then "about:blank"). */
  html?: string;
  deviceType: DeviceType;
  colorScheme: ColorScheme;
  /** Full page, scale, element, hiding, ads, consent, waits; absent = a plain viewport shot. */
  options?: CaptureOptions;
  /**
   * Cookies and headers for the target's origin only. A job with them is private: never read
   * from or written to the cache, never shared with another request's render, never logged.
   */
  credentials?: Credentials;
}

/** What the captured page says about itself; each field null when the page does not say. */
export interface PageMetadata {
  title: string | null;
  description: string | null;
  lang: string | null;
  themeColor: string | null;
  /** Absolute URL of the best icon the page declares, else its origin's /favicon.ico. */
  favicon: string | null;
  /**
   * That icon's own bytes as a data: URL, read by the capture through its own network path
   * (page/favicon.ts), so a client draws it without a cross-origin fetch.
   */
  faviconData: string | null;
  /** Absolute URL of og:image. */
  ogImage: string | null;
}

/** A page that said nothing about itself (or a capture cached before metadata was kept). */
export const NO_PAGE_METADATA: PageMetadata = {
  title: null,
  description: null,
  lang: null,
  themeColor: null,
  favicon: null,
  faviconData: null,
  ogImage: null,
};

export interface CaptureResult {
  /** The capture's bytes, in `format`: an image, a PDF, a recording, or UTF-8 text. */
  image: Uint8Array;
  /**
   * The format of `image`: the job's once the capture layer is done with it; a backend returns
   * the format it shot in, png where the shot plan has the service encode (page/shot_plan.ts).
   */
  format: OutputFormat;
  /** A PDF's pages, a recording's size and length; absent for an image or text. */
  output?: OutputFacts;
  /** The page's metadata, read once it settled; absent from records cached before it existed. */
  page?: PageMetadata;
  /** Name of the backend that rendered it, e.g. "chromium-local" or "chromium-remote". */
  strategy: string;
  /** HTTP status of the main document, or null when unknown. */
  targetStatus: number | null;
  /** True when a full page or element was taller than the cap and was cut. */
  truncated?: boolean;
  /**
   * What the render saw and what looks wrong with its picture (report.ts); a cached capture
   * keeps the report of its render, a record cached before reports were kept has none.
   */
  report?: CaptureReport;
}

export interface CaptureBackendStatus {
  name: string;
  state: "ready" | "starting" | "down";
  /** Endpoint and last error: for logs and tests, never shown to anonymous callers. */
  detail?: string;
  /** Why a backend is down, when that is our own fixed text (BackendDownError): public. */
  reason?: string;
  /** Local backend: whether Chromium runs with its sandbox (null before the first launch). */
  sandbox?: boolean | null;
}

/**
 * Renders pages. Failures are thrown as CaptureFailure (what happened, never a status): the
 * service maps them to the API's errors at its edge (capture/failures.ts, captureFailureError).
 */
export interface Capturer {
  capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult>;
  status(): CaptureBackendStatus[];
  /**
   * "advisory" when a capture's requests could reach a private address unless something outside
   * this service stops them (remote browsers without EGRESS_PROXY_URL); absent means "enforced".
   */
  boundary?(): "enforced" | "advisory";
  close(): Promise<void>;
}

/** Why a backend cannot run a capture. */
export type BackendGone =
  /** No local browser could be launched (or the backend is closed). */
  | "no_browser"
  /** No remote browser is connected or reachable; `retryAfterS` is the soonest one may be. */
  | "no_remote"
  /** The connection to the remote browser dropped during the capture. */
  | "remote_lost"
  /** The local browser went away during the capture; it is relaunched at once. */
  | "browser_restarted";

/**
 * What went wrong in a capture, in the capture's terms: lib/capture throws and branches on these
 * (the backend chain, the admission, the bounded render) and capture/failures.ts alone turns
 * each kind into a status, a code and a hint.
 */
export type CaptureFailureDetail =
  /** This backend cannot run the capture: the chain tries the next one. */
  | { kind: "backend_unavailable"; reason: BackendGone; retryAfterS: number }
  /** Every backend of the chain was unavailable; the soonest any may be back is the wait. */
  | { kind: "no_backend"; retryAfterS: number; beforeWork: boolean }
  /** The render queue could not finish another render within its budget (admission.ts). */
  | { kind: "queue_full"; retryAfterS: number }
  /** The service's deadline passed: the capturer ignored its own timeouts. */
  | { kind: "deadline"; ms: number }
  /**
   * The page (or the target) failed: `cause` is the typed failure or browser error as thrown;
   * `timedOut` when it was the capture's own budget that ran out (the render was cut off).
   */
  | { kind: "page_failed"; cause: unknown; url: string; timeoutMs: number; timedOut: boolean };

export class CaptureFailure extends Error {
  constructor(readonly detail: CaptureFailureDetail) {
    super(`capture failure: ${detail.kind}`);
    this.name = "CaptureFailure";
  }

  /**
   * Refused before any work on the page began: the queue was full, or no backend could take the
   * capture (a request charged for it may be given its count back).
   */
  get beforeWork(): boolean {
    const { detail } = this;
    switch (detail.kind) {
      case "queue_full":
        return true;
      case "no_backend":
        return detail.beforeWork;
      case "backend_unavailable":
        return detail.reason === "no_browser" || detail.reason === "no_remote";
      default:
        return false;
    }
  }
}

/**
 * Whether `error` (a CaptureFailure, or the API error it was mapped to, which carries it as its
 * cause) refused the capture before any work: the route then gives the client's hit back.
 */
export function refusedBeforeWork(error: unknown): boolean {
  const failure = error instanceof CaptureFailure
    ? error
    : error instanceof Error && error.cause instanceof CaptureFailure
    ? error.cause
    : undefined;
  return failure?.beforeWork ?? false;
}
