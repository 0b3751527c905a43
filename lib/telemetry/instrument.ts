/**
 * Decorators that record what a component does without changing it: capture backends (a
 * "capture.render" span and the capture duration histogram) and stores (the latency histogram).
 */
import type { CaptureJob, Capturer, CaptureResult } from "../capture/types.ts";
import type { Store } from "../store/store.ts";
import { METRICS, secondsSince } from "./metrics.ts";
import { outcomeOf, traced } from "./trace.ts";

/** `backend` with every render timed and traced under its name (e.g. "chromium-local"). */
export function instrumentBackend<T extends Capturer>(backend: T, name: string): T {
  return {
    ...backend,
    async capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult> {
      const started = performance.now();
      let outcome = "ok";
      try {
        const attributes = { backend: name, deviceType: job.deviceType };
        return await traced("capture.render", attributes, () => backend.capture(job, signal));
      } catch (error) {
        outcome = outcomeOf(error);
        throw error;
      } finally {
        METRICS.captureDuration.observe({ backend: name, outcome }, secondsSince(started));
      }
    },
  };
}

/** `store` with the latency of every call recorded by backend, operation and outcome. */
export function instrumentStore(store: Store): Store {
  const timed = async <R>(operation: string, call: () => Promise<R>): Promise<R> => {
    const started = performance.now();
    let outcome = "ok";
    try {
      return await call();
    } catch (error) {
      outcome = "error";
      throw error;
    } finally {
      const labels = { store: store.kind, operation, outcome };
      METRICS.storeDuration.observe(labels, secondsSince(started));
    }
  };
  return {
    // Read through, not copied: the backend answers for its own kind.
    get kind() {
      return store.kind;
    },
    getValue: <T>(key: readonly string[]) => timed("get_value", () => store.getValue<T>(key)),
    setValue: (key, value, ttlMs) => timed("set_value", () => store.setValue(key, value, ttlMs)),
    getBlob: (key) => timed("get_blob", () => store.getBlob(key)),
    setBlob: (key, blob, ttlMs) => timed("set_blob", () => store.setBlob(key, blob, ttlMs)),
    deleteBlobs: (prefix) => timed("delete_blobs", () => store.deleteBlobs(prefix)),
    hitWindow: (key, limit, windowMs) =>
      timed("hit_window", () => store.hitWindow(key, limit, windowMs)),
    close: () => store.close(),
  };
}
