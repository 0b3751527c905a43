/** A codec failure, tagged with the stage so logs say whether the input or the encoder broke. */
export class CodecError extends Error {
  constructor(readonly stage: "decode" | "encode", cause: unknown) {
    super(`${stage} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "CodecError";
  }
}
