/** An in-memory screenshot service around the solid test capturer, for the service's tests. */
import type { CachedCapture, CaptureCache } from "../lib/capture/service/cache.ts";
import {
  createScreenshotService,
  type ScreenshotServiceOptions,
} from "../lib/capture/service/screenshots.ts";
import { createMemoryLogger } from "../lib/log.ts";
import { manualClock } from "./app.ts";
import { solidCapturer } from "./solid_capturer.ts";

/** A cache that answers at once, so the order of concurrent steps is predictable. */
export function memoryCache() {
  const entries = new Map<string, CachedCapture>();
  const writes: CachedCapture[] = [];
  const cache: CaptureCache = {
    get: (key) => Promise.resolve(entries.get(key.id) ?? null),
    set: (key, capture) => {
      writes.push(capture);
      entries.set(key.id, capture);
      return Promise.resolve();
    },
    purgeUrl: () => Promise.resolve(0),
    purgeAll: () => Promise.resolve(0),
  };
  return Object.assign(cache, { writes });
}

export function serviceWith(overrides: Partial<ScreenshotServiceOptions> = {}) {
  const capturer = solidCapturer();
  const cache = memoryCache();
  const log = createMemoryLogger();
  const service = createScreenshotService({
    capturer,
    cache,
    log,
    clock: manualClock(),
    maxConcurrent: 2,
    queueBudgetMs: 15_000,
    hardTimeoutMs: 60_000,
    ...overrides,
  });
  return { service, capturer, cache, log };
}
