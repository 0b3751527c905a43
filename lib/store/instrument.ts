/** Records the latency of a store's calls without changing what they answer. */
import type { Store } from "./store.ts";
import { METRICS, secondsSince } from "../telemetry/metrics.ts";

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
    getVersioned: <T>(key: readonly string[]) =>
      timed("get_versioned", () => store.getVersioned<T>(key)),
    setValueIfVersion: (key, value, version, ttlMs) =>
      timed("set_value_if_version", () => store.setValueIfVersion(key, value, version, ttlMs)),
    getBlob: (key) => timed("get_blob", () => store.getBlob(key)),
    setBlob: (key, blob, ttlMs) => timed("set_blob", () => store.setBlob(key, blob, ttlMs)),
    deleteBlobs: (prefix) => timed("delete_blobs", () => store.deleteBlobs(prefix)),
    hitWindow: (key, limit, windowMs) =>
      timed("hit_window", () => store.hitWindow(key, limit, windowMs)),
    refundWindow: (key, hit, windowMs) =>
      timed("refund_window", () => store.refundWindow(key, hit, windowMs)),
    close: () => store.close(),
  };
}
