/**
 * Conditional and range requests on bytes the service holds whole (RFC 9110 sections 13 and 14):
 * players read a video and viewers a PDF in ranges, and a client that kept a copy revalidates it.
 * One range at a time: a multi-range request is answered whole, as the RFC allows.
 */

/** What to send for a request's Range header. */
export type RangeChoice =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number }
  | { kind: "unsatisfiable" };

const SINGLE_RANGE = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i;

/**
 * The part of `size` bytes that `range` asks for. A malformed, multi-range or foreign-unit
 * header is ignored (the whole body); so is any Range when `ifRange` is present and does not
 * name `etag` exactly (the client's copy is another one, so a part of ours would not fit it).
 */
export function rangeOf(
  headers: { range?: string; ifRange?: string },
  size: number,
  etag: string,
): RangeChoice {
  const { range, ifRange } = headers;
  if (range === undefined) return { kind: "full" };
  if (ifRange !== undefined && ifRange.trim() !== etag) return { kind: "full" };
  const match = SINGLE_RANGE.exec(range);
  if (!match) return { kind: "full" };
  const [, first, last] = match;
  if (first === "" && last === "") return { kind: "full" };
  if (first === "") {
    // A suffix: the last N bytes (all of them when N is larger than the body).
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== "" && Number(last) < start) return { kind: "full" }; // not a valid range: ignored
  if (start >= size) return { kind: "unsatisfiable" };
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: "partial", start, end };
}

/**
 * Whether `ifNoneMatch` names `etag` (weak comparison, as If-None-Match uses): the client's copy
 * is current, and a GET or HEAD gets 304.
 */
export function matchesNoneMatch(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === wanted);
}
