/**
 * Whether a cached capture may answer a request: the request's maxAge and
 * staleWhileRevalidate against the capture's age. Pure, so the rule reads in one place.
 */

export interface FreshnessRule {
  /** maxAge in ms: a capture older than this is not served fresh. */
  maxAgeMs?: number;
  /** staleWhileRevalidate: a capture past maxAgeMs is served at once and refreshed behind. */
  staleWhileRevalidate?: boolean;
}

export interface Freshness {
  /** "fresh": serve it; "stale": serve it and refresh it; "expired": render anew. */
  state: "fresh" | "stale" | "expired";
  /** Milliseconds since the render (never negative: clocks of instances may disagree). */
  ageMs: number;
}

/** How a capture rendered at `capturedAt` stands at `now` under `rule`. */
export function freshnessOf(capturedAt: number, now: number, rule: FreshnessRule): Freshness {
  const ageMs = Math.max(0, now - capturedAt);
  if (rule.maxAgeMs === undefined || ageMs <= rule.maxAgeMs) return { state: "fresh", ageMs };
  return { state: rule.staleWhileRevalidate === true ? "stale" : "expired", ageMs };
}
