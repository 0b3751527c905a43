interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  return header.split(",").flatMap((part) => {
    const [range, ...params] = part.trim().split(";");
    const [type, subtype] = range.trim().toLowerCase().split("/");
    if (!type || !subtype) return [];
    let q = 1;
    for (const param of params) {
      const [name, value] = param.trim().split("=");
      if (name?.toLowerCase() === "q") {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    return [{ type, subtype, q }];
  });
}

/** The quality the client gives `mediaType`: the most specific matching range wins (RFC 9110). */
function qualityOf(ranges: MediaRange[], mediaType: string): number {
  const [type, subtype] = mediaType.split("/");
  let best: { specificity: number; q: number } | null = null;
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype
      ? 2
      : range.type === type && range.subtype === "*"
      ? 1
      : range.type === "*" && range.subtype === "*"
      ? 0
      : -1;
    if (specificity >= 0 && (!best || specificity > best.specificity)) {
      best = { specificity, q: range.q };
    }
  }
  return best?.q ?? 0;
}

/**
 * Picks the offer the client prefers; ties go to the first offer (the server's default).
 * An absent Accept header means the default.
 */
export function negotiate<T extends string>(accept: string | undefined, offers: [T, ...T[]]): T {
  if (!accept?.trim()) return offers[0];
  const ranges = parseAccept(accept);
  let chosen = offers[0];
  let chosenQ = qualityOf(ranges, offers[0]);
  for (const offer of offers.slice(1)) {
    const q = qualityOf(ranges, offer);
    if (q > chosenQ) {
      chosen = offer;
      chosenQ = q;
    }
  }
  return chosen;
}

/** Whether the client accepts `mediaType` at all (an absent Accept header accepts anything). */
export function accepts(accept: string | undefined, mediaType: string): boolean {
  if (!accept?.trim()) return true;
  return qualityOf(parseAccept(accept), mediaType) > 0;
}

/** True when the client prefers Markdown over `fallback` (text/html or application/json). */
export function wantsMarkdown(accept: string | undefined, fallback: string): boolean {
  return negotiate(accept, [fallback, "text/markdown"]) === "text/markdown";
}

/**
 * The offers the Accept header names exactly (not through a wildcard) with a quality above 0,
 * most preferred first; ties keep the order of `offers`.
 */
export function namedOffers<T extends string>(accept: string | undefined, offers: T[]): T[] {
  if (!accept?.trim()) return [];
  const ranges = parseAccept(accept);
  const named = offers.flatMap((offer) => {
    const [type, subtype] = offer.split("/");
    const range = ranges.find((r) => r.type === type && r.subtype === subtype);
    return range && range.q > 0 ? [{ offer, q: range.q }] : [];
  });
  return named.sort((a, b) => b.q - a.q).map((n) => n.offer);
}
