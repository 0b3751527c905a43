import { MediaFailure } from "./failure.ts";
import { MEDIA_HOSTS, type MediaHost } from "../upstreams.ts";

/**
 * The allowlisted host of `url`, or null. Checked on the URL as the standard parser normalised it
 * (lowercase host, punycode, dots, default port removed), so "looks like" tricks cannot pass:
 * only an exact host match counts, never a suffix or substring.
 */
export function allowedMediaHost(url: URL): MediaHost | null {
  // https only: a plain-http fetch could be tampered with on the way and cached as ours.
  if (url.protocol !== "https:") return null;
  // Userinfo would be sent upstream as credentials, and it is the classic host-confusion trick.
  if (url.username !== "" || url.password !== "") return null;
  // An explicit non-default port would reach a different service on the same host.
  if (url.port !== "") return null;
  // Exact match: "x.pbs.twimg.com", "pbs.twimg.com.evil.test" and "pbs.twimg.com." all fail.
  return (MEDIA_HOSTS as readonly string[]).includes(url.hostname)
    ? url.hostname as MediaHost
    : null;
}

/** Parses the client's `url` and checks it against the allowlist; throws a MediaFailure. */
export function parseMediaUrl(raw: string): { url: URL; host: MediaHost } {
  const url = URL.parse(raw);
  if (!url) throw new MediaFailure({ kind: "invalid_url" });
  const host = allowedMediaHost(url);
  if (!host) throw new MediaFailure({ kind: "forbidden_host" });
  return { url, host };
}

/**
 * Whether a media type may be served from our origin: images except SVG (SVG can run script),
 * video, and audio from the video host (its HLS audio tracks). Everything else, including an
 * absent type, is refused so nothing active is ever served under our origin.
 */
export function isServableMediaType(contentType: string | null, host: MediaHost): boolean {
  const essence = contentType?.split(";")[0].trim().toLowerCase() ?? "";
  const match = /^([a-z]+)\/([a-z0-9][a-z0-9!#$&^_.+-]*)$/.exec(essence);
  if (!match) return false;
  const [, type, subtype] = match;
  if (type === "image") return !subtype.includes("svg");
  if (type === "video") return true;
  return type === "audio" && host === "video.twimg.com";
}
