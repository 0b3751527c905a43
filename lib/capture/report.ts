/**
 * The capture report: what a render saw besides its picture (how long each step took, the
 * target's status, the page's errors, failed and blocked requests, waits that ran out) and
 * what looks wrong with the picture (findings), so a caller can tell a good capture from a
 * captured bot check without looking at it. Types and the small pure helpers only: the page
 * side collects it (page/page_report.ts, page/findings.ts), the service keeps it with the cache
 * entry, the route answers it.
 */

/** What a finding can say is wrong with a capture. */
export const FINDING_KINDS = [
  "bot_challenge",
  "consent_wall",
  "login_wall",
  "blank",
  "error_page",
  "truncated",
] as const;
export type FindingKind = typeof FINDING_KINDS[number];

export interface Finding {
  kind: FindingKind;
  /** What to try instead, naming the request's options. */
  hint: string;
  /** The signal that decided it (a marker, a share of the viewport), short. */
  evidence?: string;
}

export interface CaptureReport {
  /** Milliseconds, whole. */
  timings: { navigation: number; settle: number; shot: number; encode: number; total: number };
  target: { status: number | null; finalUrl: string };
  console: {
    errors: number;
    exceptions: number;
    first: { kind: "error" | "exception"; text: string }[];
  };
  requests: {
    failed: number;
    blocked: number;
    byReason: Record<string, number>;
    first: { url: string; reason: string }[];
  };
  /** The waits that ran out of time (see WAIT_NAMES). */
  waits: string[];
  findings: Finding[];
}

/** Who blocked a request the service dropped (a `requests.byReason` key). */
export const BLOCK_REASONS = ["ads", "resource_type", "blocked_by_request", "boundary"] as const;
export type BlockReason = typeof BLOCK_REASONS[number];

/** The waits of a render that can run out and still leave a capture. */
export const WAIT_NAMES = ["load", "network_quiet", "settle"] as const;
export type WaitName = typeof WAIT_NAMES[number];

/** At most this many entries in each `first` list. */
export const REPORT_FIRST_ENTRIES = 5;
/** Console texts and request URLs are cut at these lengths. */
export const REPORT_TEXT_CHARS = 300;
export const REPORT_URL_CHARS = 200;

/** `text` cut to `max` characters, an ellipsis marking the cut. */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Milliseconds as the report gives them: whole, never negative. */
export function wholeMs(ms: number): number {
  return Math.max(0, Math.round(ms));
}

/** `report` with the service's re-encode added to its timings (and to its total). */
export function withEncodeTime(report: CaptureReport, encodeMs: number): CaptureReport {
  const encode = wholeMs(encodeMs);
  const { timings } = report;
  return { ...report, timings: { ...timings, encode, total: timings.total + encode } };
}

/**
 * A stored report, or null when the value is not one (a record of another version may hold
 * anything, or nothing: a capture cached before reports were kept).
 */
export function storedReport(value: unknown): CaptureReport | null {
  if (typeof value !== "object" || value === null) return null;
  const record = value as Partial<Record<keyof CaptureReport, unknown>>;
  const objects = [record.timings, record.target, record.console, record.requests];
  if (!objects.every((o) => typeof o === "object" && o !== null)) return null;
  if (!Array.isArray(record.waits) || !Array.isArray(record.findings)) return null;
  const findings = record.findings as unknown[];
  const known = findings.every((f) =>
    typeof f === "object" && f !== null &&
    (FINDING_KINDS as readonly unknown[]).includes((f as Finding).kind)
  );
  return known ? value as CaptureReport : null;
}
