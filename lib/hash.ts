/** Hashes shared by the capture cache and the logs, in one place so both name a URL alike. */
import { createHash } from "node:crypto";

/** Hex SHA-256 of some bytes. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Hex SHA-256 of a URL: the capture cache's key for it, and how logs refer to it. Hashed in
 * the calling turn (a URL is short), so a request's key is ready without waiting for WebCrypto:
 * identical requests arriving together find each other's render at once.
 */
export function urlHash(url: string): string {
  return textHash(url);
}

/** Hex SHA-256 of a text's UTF-8 bytes, in the calling turn (an html document's identity). */
export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
