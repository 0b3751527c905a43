/**
 * A capturer's failure as the client gets it: backends throw a typed CaptureFailure, which the
 * service's edge answers through the one mapping (lib/capture/failures.ts); tests that drive a
 * capturer directly read the same answer here.
 */
import assert from "node:assert/strict";
import { CaptureFailure } from "../lib/capture/types.ts";
import { captureFailureError } from "../lib/capture/failures.ts";
import type { ApiError } from "../lib/errors.ts";

/** The answer to the failure `capture` rejects with; fails the test when it does not reject. */
export async function captureAnswer(capture: Promise<unknown>): Promise<ApiError> {
  const error = await capture.then(() => null, (e) => e);
  assert.ok(error instanceof CaptureFailure, `a CaptureFailure, got ${error}`);
  return captureFailureError(error);
}
