/**
 * Standard Webhooks signatures: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}` under the key a `whsec_` secret carries in base64. Web Crypto only.
 * Signing is what the service does; verifying is what a receiver does, kept here so the docs'
 * example and the tests check against the same code.
 */

/** The three headers a signed delivery carries. */
export type WebhookSignatureHeaders = {
  "webhook-id": string;
  /** Unix seconds, as a decimal string. */
  "webhook-timestamp": string;
  /** Space-separated `v1,<base64>` signatures (one from us; a receiver may see several). */
  "webhook-signature": string;
};

/** What is signed: the message id, its unix-seconds timestamp and the exact body bytes sent. */
export interface SignedMessage {
  id: string;
  timestamp: number;
  body: string;
}

const SECRET_PREFIX = "whsec_";
// Key sizes the convention allows: shorter keys are guessable, longer ones buy nothing.
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;
// A signed message older or newer than this is a replay, or from a badly wrong clock.
const DEFAULT_TOLERANCE_SECONDS = 300;
const encoder = new TextEncoder();

/** The HMAC key of a `whsec_<base64>` secret; null when the secret is not of that form. */
export function secretKeyBytes(secret: string): Uint8Array | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  const bytes = decodeBase64(secret.slice(SECRET_PREFIX.length));
  if (!bytes || bytes.length < MIN_SECRET_BYTES || bytes.length > MAX_SECRET_BYTES) return null;
  return bytes;
}

/** The `v1,<base64>` signature of `message` under `secret`. */
export async function signWebhook(message: SignedMessage, secret: string): Promise<string> {
  const mac = await hmac(await importKey(secret), message);
  return `v1,${mac.toBase64()}`;
}

/** The three Standard Webhooks headers for `message`. */
export async function webhookHeaders(
  message: SignedMessage,
  secret: string,
): Promise<WebhookSignatureHeaders> {
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(message.timestamp),
    "webhook-signature": await signWebhook(message, secret),
  };
}

/** Why a delivery did not verify. */
export type VerifyFailure =
  | "missing_headers"
  | "bad_timestamp"
  | "stale_timestamp"
  | "bad_signature";

export type VerifyResult = { valid: true } | { valid: false; reason: VerifyFailure };

export interface VerifyOptions {
  /** The receiver's clock, epoch milliseconds; `Date.now()` unless given. */
  now?: number;
  /** How far the timestamp may lie from `now`, either way. */
  toleranceSeconds?: number;
}

/**
 * Checks a delivery as a receiver would: the timestamp within tolerance of `now`, and one of the
 * space-separated `v1,` signatures equal (compared in constant time) to the body's.
 */
export async function verifyWebhook(
  headers: Headers | Record<string, string | undefined>,
  body: string,
  secret: string,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const read = (name: string) =>
    headers instanceof Headers ? headers.get(name) ?? undefined : headers[name];
  const id = read("webhook-id");
  const timestampText = read("webhook-timestamp");
  const signatures = read("webhook-signature");
  if (!id || !timestampText || !signatures) return { valid: false, reason: "missing_headers" };
  if (!/^\d{1,12}$/.test(timestampText)) return { valid: false, reason: "bad_timestamp" };
  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  // Both ways: an old message is a replay; one from the future was signed to be replayed later.
  if (Math.abs(nowSeconds - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { valid: false, reason: "stale_timestamp" };
  }
  const expected = await hmac(await importKey(secret), { id, timestamp, body });
  let matched = false;
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) continue;
    const given = decodeBase64(value);
    // Every candidate is compared, matched or not, so timing says nothing about which one.
    if (given && constantTimeEqual(given, expected)) matched = true;
  }
  return matched ? { valid: true } : { valid: false, reason: "bad_signature" };
}

/** Strict standard base64 (padding optional); null for anything else. */
function decodeBase64(text: string): Uint8Array | null {
  // fromBase64 skips whitespace; a secret or signature with some is not what was issued.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  try {
    return Uint8Array.fromBase64(text, { lastChunkHandling: "loose" });
  } catch {
    return null;
  }
}

async function importKey(secret: string): Promise<CryptoKey> {
  const key = secretKeyBytes(secret);
  // The message names the form only: the secret itself never reaches an error or a log.
  if (!key) throw new Error("webhook secret must be whsec_ and base64 of 24 to 64 bytes");
  return await crypto.subtle.importKey(
    "raw",
    key as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
}

async function hmac(key: CryptoKey, message: SignedMessage): Promise<Uint8Array> {
  const signed = encoder.encode(`${message.id}.${message.timestamp}.${message.body}`);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, signed));
}

/** Equal bytes, in a time that depends on the length only (a MAC's length is public). */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}
