/**
 * Captures refused before any work: the render queue would not take them (admission.ts). Such a
 * refusal is marked where the service asks for a slot, whatever its error type, so the route can
 * give the client's rate-limit hit back; a failure after a slot was granted is never marked (a
 * page that brings the browser down must still pay for it).
 */
import type { CaptureAdmission } from "./admission.ts";

// The refusals themselves, by identity: the error reaches the route as it was thrown.
const refusals = new WeakSet<object>();

/** `admission` whose refusals (not a caller's abort) are marked as refused before any work. */
export function markingRefusals(admission: CaptureAdmission): CaptureAdmission {
  return {
    ...admission,
    async acquire(signal) {
      try {
        return await admission.acquire(signal);
      } catch (error) {
        if (!signal.aborted && typeof error === "object" && error !== null) refusals.add(error);
        throw error;
      }
    },
  };
}

/** Whether a capture failed because it was refused before any work was done. */
export function refusedBeforeWork(error: unknown): boolean {
  return typeof error === "object" && error !== null && refusals.has(error);
}
