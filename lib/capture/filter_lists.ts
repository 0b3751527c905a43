/**
 * The filter lists behind `blockAds` (ADBLOCK_LIST_URLS, EasyList syntax) and `hideAnnoyances`
 * (ANNOYANCE_LIST_URLS, its own engine so one option never applies the other's rules): fetched by the
 * service itself in the background (never by the browser, never through the capture
 * boundary), kept in the store so every instance and restart reuses them, refreshed daily, and
 * compiled into one `@ghostery/adblocker` engine.
 */
import { FiltersEngine } from "@ghostery/adblocker";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { Clock } from "../clock.ts";
import { withTimeout } from "../timeout.ts";

/** A list younger than this is used as it is; older ones are fetched again. */
export const LIST_FRESH_MS = 24 * 60 * 60 * 1000;
// Kept in the store well past freshness, so an upstream outage still finds the last copy.
const LIST_KEEP_MS = 7 * LIST_FRESH_MS;
// When no list could be loaded at all, try again this soon rather than a day later.
const RETRY_EMPTY_MS = 5 * 60 * 1000;
// EasyList is about 2 MB; anything far bigger is not a filter list.
const MAX_LIST_BYTES = 16 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

export interface AdFilters {
  /** The engine built from the lists loaded so far; null while none ever loaded. */
  engine(): FiltersEngine | null;
  /** The same for the annoyance lists behind hideAnnoyances (chat widgets, newsletters...). */
  annoyances(): FiltersEngine | null;
  /** Loads every list (store first, then the network); failures are logged. */
  refresh(): Promise<void>;
  /** First load now, then a refresh every day (in the background; never throws). */
  start(): Promise<void>;
  /** Stops the refresh timer. */
  close(): void;
}

export interface AdFiltersOptions {
  urls: readonly string[];
  /** ANNOYANCE_LIST_URLS: lists whose element-hiding rules hideAnnoyances applies. */
  annoyanceUrls?: readonly string[];
  store: Store;
  log: Logger;
  clock: Clock;
  /** Deno's own fetch in production (so HTTPS_PROXY applies); loopback servers in tests. */
  fetch: typeof fetch;
}

async function listKey(url: string): Promise<string[]> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(url));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return ["adblock", hex];
}

/** Reads a response body, refusing one past `limit` bytes. */
async function boundedText(response: Response, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? new ReadableStream<Uint8Array>()) {
    size += chunk.length;
    if (size > limit) throw new Error(`list is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) (bytes.set(chunk, offset), offset += chunk.length);
  return new TextDecoder().decode(bytes);
}

/** The lists of `urls`, loaded lazily; nothing is fetched until `start()` or `refresh()`. */
export function createAdFilters(options: AdFiltersOptions): AdFilters {
  const { urls, store, log, clock } = options;
  let engine: FiltersEngine | null = null;
  let annoyanceEngine: FiltersEngine | null = null;
  const annoyanceUrls = options.annoyanceUrls ?? [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let running: Promise<void> | null = null;

  /** One list: the stored copy while fresh, else the network, else a stale stored copy. */
  const loadList = async (url: string): Promise<string | null> => {
    const key = await listKey(url);
    const stored = await withTimeout(store.getBlob(key), 5_000, "filter list read")
      .catch((error) => (log.warn("filter list read failed", { url, error }), null));
    const fetchedAt = Number(stored?.meta.fetchedAt ?? 0);
    if (stored && clock.now() - fetchedAt < LIST_FRESH_MS) {
      return new TextDecoder().decode(stored.bytes);
    }
    try {
      const response = await options.fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}`);
      }
      const text = await boundedText(response, MAX_LIST_BYTES);
      const bytes = new TextEncoder().encode(text);
      await withTimeout(
        store.setBlob(key, { bytes, meta: { url, fetchedAt: clock.now() } }, LIST_KEEP_MS),
        10_000,
        "filter list write",
      ).catch((error) => log.warn("filter list write failed", { url, error }));
      log.info("filter list fetched", { url, bytes: bytes.length });
      return text;
    } catch (error) {
      log.warn("filter list could not be fetched", {
        url,
        reason: error instanceof Error ? error.message : String(error),
        usingStoredCopy: Boolean(stored),
      });
      return stored ? new TextDecoder().decode(stored.bytes) : null;
    }
  };

  /** One engine from `lists`; null (and the engine kept as it was) when none loaded. */
  const loadEngine = async (lists: readonly string[], use: string) => {
    if (lists.length === 0) return null;
    const texts = (await Promise.all(lists.map(loadList))).filter((t): t is string => t !== null);
    if (texts.length === 0) {
      log.warn(`no filter list is loaded; ${use} answers 503 until one is`, { urls: lists });
      return null;
    }
    const started = performance.now();
    const parsed = FiltersEngine.parse(texts.join("\n"), {
      loadCosmeticFilters: true,
      loadNetworkFilters: true,
    });
    log.info("ad filters ready", {
      use,
      lists: texts.length,
      of: lists.length,
      parseMs: Math.round(performance.now() - started),
    });
    return parsed;
  };

  const load = async () => {
    engine = await loadEngine(urls, "blockAds") ?? engine;
    annoyanceEngine = await loadEngine(annoyanceUrls, "hideAnnoyances") ?? annoyanceEngine;
  };

  const schedule = () => {
    if (closed) return;
    clearTimeout(timer);
    const next = setTimeout(() => {
      void self.refresh().finally(schedule);
    }, engine ? LIST_FRESH_MS : RETRY_EMPTY_MS);
    // The refresh must not keep a finished process (or a test) alive.
    Deno.unrefTimer(next);
    timer = next;
  };

  const self: AdFilters = {
    engine: () => engine,
    annoyances: () => annoyanceEngine,
    refresh() {
      // Concurrent callers share one load.
      running ??= load().catch((error) => log.error("ad filters failed", { error }))
        .finally(() => running = null);
      return running;
    },
    async start() {
      await self.refresh();
      schedule();
    },
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
  return self;
}
