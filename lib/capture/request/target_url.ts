import { isIPv4 } from "node:net";
import { forbiddenReason } from "../../egress/address.ts";
import { RequestFailure } from "./request_failure.ts";

// Far beyond any real page address, small enough to keep keys, logs and proxies sane.
export const MAX_URL_LENGTH = 8192;

export interface TargetUrlOptions {
  /** ALLOW_PRIVATE_NETWORK: literal loopback/private addresses are accepted (dev and tests). */
  allowPrivateNetwork: boolean;
}

const SCHEME_HINT = "Send an absolute http:// or https:// URL of a public site, e.g. " +
  "https://example.com. Other schemes (file:, data:, javascript:, chrome:, view-source:...) " +
  "are never captured.";

function invalid(message: string, hint: string): RequestFailure {
  return new RequestFailure({ kind: "invalid_url", message, hint });
}

/**
 * Validates a capture target and returns its normalised form, the cache key and `url` field.
 *
 * Accepted: absolute `http://` or `https://` URLs without userinfo whose host is a name, a
 * dotted-quad IPv4 written canonically, or a bracketed IPv6 (not IPv4-mapped). Literal private,
 * loopback, link-local... addresses are refused unless `allowPrivateNetwork`; names are judged
 * later, by what they resolve to, at the egress proxy.
 *
 * Normalisation (WHATWG URL serialisation): scheme and host lowercased (IDN hosts in punycode),
 * default ports (80 for http, 443 for https) dropped, an empty path becomes `/`, the fragment is
 * dropped; path and query are kept as sent (only percent-encoding is made canonical).
 */
export function parseTargetUrl(input: string, options: TargetUrlOptions): string {
  const raw = input.trim();
  if (raw.length === 0) throw invalid("url must not be empty.", SCHEME_HINT);
  if (raw.length > MAX_URL_LENGTH) {
    throw invalid("url is too long.", `Send a URL of at most ${MAX_URL_LENGTH} characters.`);
  }
  // Control characters are silently dropped by URL parsers; refuse rather than guess.
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) {
    throw invalid("url contains control characters.", SCHEME_HINT);
  }
  const scheme = raw.match(/^([a-z][a-z0-9+.-]*):/i)?.[1].toLowerCase();
  if (!scheme) throw invalid("url must be an absolute http or https URL.", SCHEME_HINT);
  // Only web pages are captured: other schemes read local files or run script in our browser.
  if (scheme !== "http" && scheme !== "https") {
    throw invalid(`The ${scheme}: scheme cannot be captured.`, SCHEME_HINT);
  }
  // "http:example.com" and "http:\\example.com" parse, but are not the absolute form we promise.
  if (!/^https?:\/\//i.test(raw)) {
    throw invalid("url must be an absolute http or https URL.", SCHEME_HINT);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("url is not a valid URL.", SCHEME_HINT);
  }
  const authority = raw.slice(raw.indexOf("//") + 2).split(/[/?#\\]/, 1)[0];
  // Credentials in a URL end up in logs and let "trusted.com@evil.com" mislead readers.
  if (authority.includes("@") || url.username || url.password) {
    throw invalid(
      "url must not contain a user name or password.",
      "Remove the user:password@ part; pages behind authentication cannot be captured.",
    );
  }
  checkHost(url.hostname, rawHostOf(authority), options);
  url.hash = "";
  return url.href;
}

/** The host as written (lowercase, brackets kept), before WHATWG rewrote it. */
function rawHostOf(authority: string): string {
  if (authority.startsWith("[")) return authority.slice(0, authority.indexOf("]") + 1);
  const colon = authority.lastIndexOf(":");
  return (colon === -1 ? authority : authority.slice(0, colon)).toLowerCase();
}

/** The host for a message: user input, so kept short. */
function shown(host: string): string {
  return host.length > 80 ? `${host.slice(0, 80)}...` : host;
}

function checkHost(hostname: string, rawHost: string, options: TargetUrlOptions) {
  if (isIPv4(hostname)) {
    // WHATWG turns 2130706433, 0x7f000001, 127.1, 0177.0.0.1, %31... into 127.0.0.1: an odd
    // spelling only exists to slip past checks, so anything but the canonical form is refused.
    if (rawHost !== hostname) {
      throw invalid(
        `The host "${shown(rawHost)}" is an IP address in an unusual notation.`,
        "Write IPv4 addresses as four decimal numbers (e.g. 93.184.215.14), or use the host name.",
      );
    }
    // The egress proxy's own classifier: a literal it would refuse never reaches the queue.
    if (!options.allowPrivateNetwork && forbiddenReason(hostname)) throw privateAddress(rawHost);
    return;
  }
  if (hostname.startsWith("[")) {
    const ip = hostname.slice(1, -1);
    // An IPv4 dressed as IPv6 (::ffff:127.0.0.1, ::127.0.0.1) is an odd spelling too.
    if (/^::(ffff:)?[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(ip) && ip !== "::1") {
      throw invalid(
        `The host "${shown(rawHost)}" is an IPv4 address written as IPv6.`,
        "Write IPv4 addresses as four decimal numbers (e.g. 93.184.215.14), or use the host name.",
      );
    }
    if (!options.allowPrivateNetwork && forbiddenReason(ip)) throw privateAddress(rawHost);
    return;
  }
  // Browsers resolve localhost and *.localhost to loopback themselves, without asking DNS.
  if (!options.allowPrivateNetwork && /(^|\.)localhost\.?$/.test(hostname)) {
    throw privateAddress(rawHost);
  }
}

/** Answered as a name that resolves there is (capture/failures.ts, notPubliclyReachable). */
function privateAddress(host: string): RequestFailure {
  return new RequestFailure({ kind: "private_target", host: shown(host) });
}
