import type { WindowVerdict } from "../store/store.ts";

// Distinct keys remembered at once; past it the least recently hit go first, so a flood of
// spoofed or rotating addresses costs bounded memory.
const DEFAULT_MAX_KEYS = 10_000;

/** A sliding-window counter in this process's memory (per instance, lost on restart). */
export interface MemoryWindow {
  /** Counts a hit for `key` when under `limit`; the verdict has the store's shape. */
  hit(key: string, limit: number, now: number): WindowVerdict;
  /** The verdict a hit would get, without counting one. */
  peek(key: string, limit: number, now: number): WindowVerdict;
  /** Takes back one hit counted at `at` (or later), if it is still in the window. */
  refund(key: string, at: number, now: number): void;
}

/** Windows of `windowMs`; at most `maxKeys` keys are tracked. */
export function createMemoryWindow(windowMs: number, maxKeys = DEFAULT_MAX_KEYS): MemoryWindow {
  const hits = new Map<string, number[]>();
  const current = (key: string, now: number) => {
    const recent = (hits.get(key) ?? []).filter((t) => t > now - windowMs);
    // Re-inserting keeps the map ordered by last use, which is what eviction relies on.
    hits.delete(key);
    if (recent.length > 0) hits.set(key, recent);
    return recent;
  };
  const verdict = (recent: number[], limit: number, now: number, allowed: boolean) => ({
    allowed,
    limit,
    remaining: Math.max(0, limit - recent.length),
    resetAt: (recent[0] ?? now) + windowMs,
  });
  return {
    hit(key, limit, now) {
      const recent = current(key, now);
      const allowed = recent.length < limit;
      if (allowed) {
        recent.push(now);
        hits.set(key, recent);
        if (hits.size > maxKeys) hits.delete(hits.keys().next().value!);
      }
      return {
        ...verdict(recent, limit, now, allowed),
        ...(allowed ? { hit: { at: now, id: "" } } : {}),
      };
    },
    refund(key, at, now) {
      // Gone from the window: the later hits are others'.
      if (at <= now - windowMs) return;
      const recent = current(key, now);
      const index = recent.findIndex((time) => time >= at);
      if (index === -1) return;
      recent.splice(index, 1);
      if (recent.length === 0) hits.delete(key);
    },
    peek(key, limit, now) {
      const recent = current(key, now);
      return verdict(recent, limit, now, recent.length < limit);
    },
  };
}
