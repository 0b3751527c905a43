/** Hashes shared by the capture cache and the logs, in one place so both name a URL alike. */

/** Hex SHA-256 of some bytes. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Hex SHA-256 of a URL: the capture cache's key for it, and how logs refer to it. */
export function urlHash(url: string): Promise<string> {
  return sha256Hex(new TextEncoder().encode(url));
}
