/**
 * What is wrong with a capture request, said in the request's terms: request code throws it and
 * never chooses an HTTP status; capture/failures.ts gives each kind its status, code and hint.
 */

export type RequestFailureDetail =
  /** The target URL is not one the service captures; `message` and `hint` say why. */
  | { kind: "invalid_url"; message: string; hint: string }
  /** A literal private, loopback or localhost target, refused before any capture. */
  | { kind: "private_target"; host: string }
  /** Another field of the request is out of bounds (credentials, viewport, maxAge). */
  | { kind: "invalid_field"; message: string; hint: string };

export class RequestFailure extends Error {
  constructor(readonly detail: RequestFailureDetail) {
    super("message" in detail ? detail.message : `request failure: ${detail.kind}`);
    this.name = "RequestFailure";
  }
}

/** A field out of bounds, with the hint that says how to fix it. */
export function invalidField(message: string, hint: string): RequestFailure {
  return new RequestFailure({ kind: "invalid_field", message, hint });
}
