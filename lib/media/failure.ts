/**
 * Why a media request was refused or could not be served, in the proxy's terms: the allowlist
 * and the proxy throw it and never choose an HTTP status; the image-proxy route gives each kind
 * its status, code and hint.
 */

export type MediaFailureDetail =
  /** The client's url is not an absolute URL. */
  | { kind: "invalid_url" }
  /** The url is not https on an allowlisted host (or carries a port or userinfo). */
  | { kind: "forbidden_host" }
  /** The media host sent no response headers within `ms`. */
  | { kind: "timeout"; ms: number }
  /** The media host could not be reached at all. */
  | { kind: "unreachable" }
  /** The media host answered, but not with something the proxy may pass on; `reason` says why. */
  | { kind: "refused"; reason: string };

export class MediaFailure extends Error {
  constructor(readonly detail: MediaFailureDetail) {
    super(`media failure: ${detail.kind}`);
    this.name = "MediaFailure";
  }
}
