/**
 * How a capture target appears in logs: its origin and a hash of the full URL. The path and
 * query may hold a user's tokens (password-reset links, signed URLs), so they never reach a log;
 * the hash still lets an operator match a report ("this URL failed") to its log lines.
 */
import { urlHash } from "../../hash.ts";

/** `{ target: origin, targetHash }` for a log line. */
export function targetLogFields(url: string): Promise<{ target: string; targetHash: string }> {
  return Promise.resolve({ target: originOf(url), targetHash: urlHash(url) });
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
