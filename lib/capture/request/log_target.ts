/**
 * How a capture target appears in logs: its origin and a hash of the full URL. The path and
 * query may hold a user's tokens (password-reset links, signed URLs), so they never reach a log;
 * the hash still lets an operator match a report ("this URL failed") to its log lines.
 */

/** Hex SHA-256 of the URL (also the capture cache's key for it). */
export async function urlHash(url: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(url));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `{ target: origin, targetHash }` for a log line. */
export async function targetLogFields(
  url: string,
): Promise<{ target: string; targetHash: string }> {
  return { target: originOf(url), targetHash: await urlHash(url) };
}

/** Replaces every URL in a message (browser errors quote them) with its origin. */
export function redactUrls(text: string): string {
  return text.replace(/\b(?:https?|wss?):\/\/[^\s"'<>]+/gi, (url) => originOf(url));
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "<unparseable url>";
  }
}
