/**
 * Signed render links (docs/render-links.md): a GET URL whose query carries the fields of a
 * capture request, an expiry and an HMAC-SHA256 over the canonical query, so anyone holding
 * the link may fetch that one capture until it expires, and nobody can change what it asks for.
 * Plain Web Crypto: the same few lines run in a browser, Node, Deno or a worker.
 */

/** Where render links point. */
export const RENDER_PATH = "/api/render";

/** The query parameters the signature covers besides the capture's fields. */
export const LINK_PARAMS = ["expires", "signature"] as const;

/** A hex HMAC-SHA256: 32 bytes. */
const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;

/** Unix seconds: digits only, so a link's expiry reads the same everywhere. */
const EXPIRES_PATTERN = /^[0-9]{1,12}$/;

/**
 * RFC 3986 percent-encoding: unreserved characters (`A-Z a-z 0-9 - . _ ~`) kept, every other
 * UTF-8 byte as `%XX` (uppercase). encodeURIComponent also keeps `! ' ( ) *`, so those are added.
 */
export function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * The text the signature covers: every parameter but `signature`, each name and value
 * percent-encoded (RFC 3986), sorted by encoded name then encoded value, joined as `name=value`
 * with `&`. Independent of the order the parameters came in.
 */
export function canonicalQuery(params: Iterable<[string, string]>): string {
  const pairs = [...params].filter(([name]) => name !== "signature")
    .map(([name, value]) => [percentEncode(name), percentEncode(value)] as const);
  // Code-unit order: the encoded texts are ASCII, so this is byte order in every language.
  const compare = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;
  pairs.sort((a, b) => compare(a[0], b[0]) || compare(a[1], b[1]));
  return pairs.map(([name, value]) => `${name}=${value}`).join("&");
}

/**
 * A capture request's fields as query parameters: strings as they are, numbers and booleans as
 * their JSON text, arrays and objects as JSON text; undefined fields left out.
 */
export function renderLinkParams(fields: Record<string, unknown>): [string, string][] {
  return Object.entries(fields).filter(([, value]) => value !== undefined)
    .map(([name, value]) => [name, typeof value === "string" ? value : JSON.stringify(value)]);
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

/** Lowercase hex HMAC-SHA256 of the canonical form of `params` under `secret`. */
export async function renderLinkSignature(
  secret: string,
  params: Iterable<[string, string]>,
): Promise<string> {
  const mac = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret),
    new TextEncoder().encode(canonicalQuery(params)),
  );
  return Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What signRenderLink needs besides the fields. */
export interface RenderLinkSigning {
  /** RENDER_LINK_SECRET of the service that will answer the link. */
  secret: string;
  /** When the link stops working (kept to the second, rounded down). */
  expiresAt: Date;
}

/** A signed GET /api/render URL on `baseUrl` for the capture request `fields`. */
export async function signRenderLink(
  baseUrl: string,
  fields: Record<string, unknown>,
  signing: RenderLinkSigning,
): Promise<string> {
  const expires = Math.floor(signing.expiresAt.getTime() / 1000);
  const params: [string, string][] = [...renderLinkParams(fields), ["expires", String(expires)]];
  const signature = await renderLinkSignature(signing.secret, params);
  const query = [...params, ["signature", signature]]
    .map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join("&");
  return `${baseUrl.replace(/\/+$/, "")}${RENDER_PATH}?${query}`;
}

/** Why a link was refused: each is a 403 to the caller, named only in the operator's log. */
export type RenderLinkRefusal = "unsigned" | "bad_signature" | "no_expiry" | "expired";

/** A verified link's capture fields and expiry, or why it is refused. */
export type RenderLinkVerdict =
  | { valid: true; fields: [string, string][]; expiresAt: number }
  | { valid: false; refusal: RenderLinkRefusal };

/**
 * Checks a link's query: its signature over every other parameter (compared in constant time
 * by Web Crypto's verify), then its expiry against `now` (epoch ms). Valid, it returns the
 * capture's fields (the parameters but `expires` and `signature`) as they came.
 */
export async function verifyRenderLink(
  query: URLSearchParams,
  options: { secret: string; now: number },
): Promise<RenderLinkVerdict> {
  const signatures = query.getAll("signature");
  if (signatures.length === 0) return { valid: false, refusal: "unsigned" };
  const [signature] = signatures;
  if (signatures.length > 1 || !SIGNATURE_PATTERN.test(signature)) {
    return { valid: false, refusal: "bad_signature" };
  }
  const params = [...query.entries()];
  const mac = Uint8Array.from(signature.match(/../g)!, (byte) => parseInt(byte, 16));
  const signed = await crypto.subtle.verify(
    "HMAC",
    await hmacKey(options.secret),
    mac,
    new TextEncoder().encode(canonicalQuery(params)),
  );
  if (!signed) return { valid: false, refusal: "bad_signature" };
  const expires = query.getAll("expires");
  if (expires.length !== 1 || !EXPIRES_PATTERN.test(expires[0])) {
    return { valid: false, refusal: "no_expiry" };
  }
  const expiresAt = Number(expires[0]) * 1000;
  // The link works before the second it names, not from it on.
  if (options.now >= expiresAt) return { valid: false, refusal: "expired" };
  const linkParams: readonly string[] = LINK_PARAMS;
  const fields = params.filter(([name]) => !linkParams.includes(name));
  return { valid: true, fields, expiresAt };
}
