/** A codec failure, tagged with the stage so logs say whether the input or the encoder broke. */
export class CodecError extends Error {
  constructor(readonly stage: "decode" | "encode", cause: unknown) {
    super(`${stage} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "CodecError";
  }
}

/**
 * Why an export was refused or failed, in the exporter's terms: codec code throws it and never
 * chooses an HTTP status; failures.ts gives each kind its status, code and hint.
 */
export type ExportFailureDetail =
  /** The image part has no bytes. */
  | { kind: "empty" }
  /** The bytes are not a PNG, JPEG or WebP file. */
  | { kind: "not_an_image" }
  /** An animated WebP. */
  | { kind: "animated" }
  /** More pixels, or a longer side, than supported. */
  | { kind: "too_large"; width: number; height: number }
  /** A side longer than WebP can store. */
  | { kind: "too_tall_for_webp"; width: number; height: number }
  /** The encoder queue cannot take the export now; retry after `retryAfterS`. */
  | { kind: "busy"; retryAfterS: number }
  /** The file looks like an image but cannot be decoded; `reason` is for the logs only. */
  | { kind: "undecodable"; reason: string };

export class ExportFailure extends Error {
  constructor(readonly detail: ExportFailureDetail) {
    super(`export failure: ${detail.kind}`);
    this.name = "ExportFailure";
  }
}
