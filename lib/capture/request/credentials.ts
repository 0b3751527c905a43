/**
 * Cookies and request headers for pages behind a login: their limits and the headers a caller
 * may not set. They are secrets: nothing here (or anywhere) puts a value into a message, a log,
 * a trace or a cache key; only names are ever quoted.
 */
import { invalidField, type RequestFailure } from "./request_failure.ts";

/** What a capture sends to the target's own origin, and nowhere else. */
export interface Credentials {
  cookies?: { name: string; value: string }[];
  headers?: Record<string, string>;
}

/** Most cookies, and their total size (names and values) in bytes: a real session, no more. */
export const MAX_COOKIES = 50;
export const MAX_COOKIE_BYTES = 8 * 1024;
/** Most headers, and their total size in bytes (servers commonly refuse more than 8 KiB). */
export const MAX_HEADERS = 20;
export const MAX_HEADER_BYTES = 8 * 1024;

// The browser or the connection owns these; setting them would break the request or the
// egress proxy's authentication (Proxy-*), or lie about the page (Origin, Referer, Sec-*).
// Cookie has its own field, where it is scoped like a cookie.
const FORBIDDEN_HEADERS = new Set([
  "accept-charset",
  "accept-encoding",
  "access-control-request-headers",
  "access-control-request-method",
  "connection",
  "content-length",
  "cookie",
  "cookie2",
  "date",
  "dnt",
  "expect",
  "host",
  "keep-alive",
  "origin",
  "referer",
  "set-cookie",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "user-agent",
  "via",
]);
const FORBIDDEN_PREFIXES = ["proxy-", "sec-"];

// RFC 9110 token characters for names; values may hold visible ASCII, spaces and tabs.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
// RFC 6265 cookie-octets: no whitespace, quotes, commas, semicolons or backslashes.
const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;

const bytes = (text: string) => new TextEncoder().encode(text).length;

function refused(message: string, hint: string): RequestFailure {
  return invalidField(message, hint);
}

/** Whether a header name is one the browser or the connection controls. */
export function isForbiddenHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return FORBIDDEN_HEADERS.has(lower) || FORBIDDEN_PREFIXES.some((p) => lower.startsWith(p));
}

/**
 * The credentials of a request, checked (400 naming the offending names, never a value), or
 * undefined when there are none.
 */
export function checkCredentials(sent: Credentials): Credentials | undefined {
  const cookies = sent.cookies ?? [];
  const headers = Object.entries(sent.headers ?? {});
  if (headers.length > MAX_HEADERS) {
    throw refused("Too many headers.", `Send at most ${MAX_HEADERS} headers.`);
  }
  const badName = headers.find(([name]) => !TOKEN.test(name));
  if (badName) {
    throw refused(
      "A header name is not a valid HTTP token.",
      "Header names are letters, " +
        "digits and !#$%&'*+.^_`|~- only.",
    );
  }
  const forbidden = headers.map(([name]) => name).filter(isForbiddenHeader);
  if (forbidden.length > 0) {
    throw refused(
      `headers may not set ${forbidden.join(", ")}.`,
      "These headers belong to the browser or the connection (hop-by-hop, Host, " +
        "Content-Length, Origin, Referer, User-Agent, Proxy-* and Sec-*); send cookies in " +
        "`cookies` and pick the user agent with `device` or `deviceType`.",
    );
  }
  const badValue = headers.find(([, value]) => !HEADER_VALUE.test(value));
  if (badValue) {
    throw refused(
      `The value of header ${badValue[0]} is not allowed.`,
      "Header values " +
        "are printable ASCII, spaces and tabs (no line breaks).",
    );
  }
  if (headers.reduce((sum, [n, v]) => sum + bytes(n) + bytes(v), 0) > MAX_HEADER_BYTES) {
    throw refused(
      "The headers are too large.",
      `Names and values together may be at most ` +
        `${MAX_HEADER_BYTES} bytes.`,
    );
  }
  const badCookie = cookies.find((c) => !TOKEN.test(c.name) || !COOKIE_VALUE.test(c.value));
  if (badCookie) {
    throw refused(
      `Cookie ${TOKEN.test(badCookie.name) ? badCookie.name : "name"} is not valid.`,
      "Cookie names are HTTP tokens; values are cookie octets (no spaces, quotes, commas, " +
        "semicolons or backslashes; encode them, as the site itself would).",
    );
  }
  if (cookies.reduce((sum, c) => sum + bytes(c.name) + bytes(c.value) + 2, 0) > MAX_COOKIE_BYTES) {
    throw refused(
      "The cookies are too large.",
      `Names and values together may be at most ` +
        `${MAX_COOKIE_BYTES} bytes.`,
    );
  }
  if (cookies.length === 0 && headers.length === 0) return undefined;
  return {
    ...(cookies.length > 0 ? { cookies } : {}),
    ...(headers.length > 0 ? { headers: Object.fromEntries(headers) } : {}),
  };
}
