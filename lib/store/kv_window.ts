/**
 * The Deno KV sliding-window rate limiter: an exact log of hit times per key, updated with a
 * compare-and-set, and coalesced within the instance, so a hot key costs one atomic commit per
 * batch of concurrent hits instead of a storm of commits that all retry on one versionstamp.
 */
import type { StoreKey, WindowHit, WindowVerdict } from "./store.ts";
import type { Clock } from "../clock.ts";

// Version conflicts (another instance committed first) are retried; past this the limiter
// gives up and the caller fails open.
const MAX_ATOMIC_ATTEMPTS = 64;
// A KV value holds at most 64 KiB; a pair costs up to 6 bytes serialised, so 8000 pairs fit.
const MAX_PAIRS = 8_000;

/**
 * Hits as (time, count) pairs, oldest first: a batch admitted in one commit shares one time.
 * Stored as [firstTime, firstCount, delta, count, ...] with deltas from the previous pair, so
 * V8's serialiser writes small integers (a byte or three) instead of 9-byte doubles.
 */
type Pairs = Array<[time: number, count: number]>;

function decode(stored: number[] | null): Pairs {
  const pairs: Pairs = [];
  if (!stored) return pairs;
  let time = 0;
  for (let i = 0; i + 1 < stored.length; i += 2) {
    time = i === 0 ? stored[0] : time + stored[i];
    pairs.push([time, stored[i + 1]]);
  }
  return pairs;
}

function encode(pairs: Pairs): number[] {
  const out: number[] = [];
  pairs.forEach(([time, count], i) => out.push(i === 0 ? time : time - pairs[i - 1][0], count));
  return out;
}

/**
 * Keeps the log within one KV value: past MAX_PAIRS the oldest pairs merge into the next one,
 * whose later time they take. Merged hits then leave the window a little later than they
 * would, never earlier, so the limit is never exceeded (only ever a few ms stricter).
 */
function compact(pairs: Pairs): Pairs {
  if (pairs.length <= MAX_PAIRS) return pairs;
  const excess = pairs.length - MAX_PAIRS + 1;
  const merged = pairs.slice(0, excess).reduce((sum, [, count]) => sum + count, 0);
  return [[pairs[excess - 1][0], merged], ...pairs.slice(excess)];
}

/** Commits a compare-and-set; on a conflict, pauses before the caller's next attempt. */
async function committed(write: Deno.AtomicOperation, attempt: number): Promise<boolean> {
  const result = await write.commit().catch((error) => {
    // Another process holds the SQLite file's write lock: a conflict like any other.
    if (String(error).includes("database is locked")) return { ok: false };
    throw error;
  });
  if (result.ok) return true;
  // A jittered pause, growing with the attempts, lets the other instance's commit land.
  await new Promise((r) => setTimeout(r, Math.random() * Math.min(attempt + 1, 20)));
  return false;
}

/** Where a window's log lives in KV. */
const logKey = (key: StoreKey): Deno.KvKey => ["rate_log", ...key];

interface Waiter {
  resolve(verdict: WindowVerdict): void;
  reject(error: unknown): void;
}

interface Lane {
  key: Deno.KvKey;
  limit: number;
  windowMs: number;
  waiting: Waiter[];
}

/** `hitWindow` for a Deno KV store; concurrent hits of one key share a commit. */
export function createKvWindow(kv: Deno.Kv, clock: Clock) {
  const lanes = new Map<string, Lane>();

  /** Counts `n` hits in one read and one commit; one verdict per hit, in arrival order. */
  async function commitBatch(lane: Lane, n: number): Promise<WindowVerdict[]> {
    const { key, limit, windowMs } = lane;
    for (let attempt = 0; attempt < MAX_ATOMIC_ATTEMPTS; attempt++) {
      const now = clock.now();
      const entry = await kv.get<number[]>(key);
      const pairs = decode(entry.value).filter(([time]) => time > now - windowMs);
      const counted = pairs.reduce((sum, [, count]) => sum + count, 0);
      const admitted = Math.max(0, Math.min(n, limit - counted));
      if (admitted > 0) {
        const last = pairs.at(-1);
        if (last && last[0] === now) last[1] += admitted;
        else pairs.push([now, admitted]);
      }
      const resetAt = (pairs[0]?.[0] ?? now) + windowMs;
      const verdicts = Array.from({ length: n }, (_, i): WindowVerdict => ({
        allowed: i < admitted,
        limit,
        remaining: i < admitted ? limit - counted - i - 1 : 0,
        resetAt,
        ...(i < admitted ? { hit: { at: now, id: "" } } : {}),
      }));
      if (admitted === 0) return verdicts;
      // Compare-and-set on the versionstamp keeps instances sharing the store exact.
      const write = kv.atomic().check(entry)
        .set(key, encode(compact(pairs)), { expireIn: windowMs });
      if (await committed(write, attempt)) return verdicts;
    }
    throw new Error("rate window stayed contended");
  }

  /** Commits batches for a lane until nobody waits: hits that arrive meanwhile form the next. */
  async function drain(id: string, lane: Lane) {
    while (lane.waiting.length > 0) {
      const batch = lane.waiting.splice(0);
      try {
        const verdicts = await commitBatch(lane, batch.length);
        batch.forEach((waiter, i) => waiter.resolve(verdicts[i]));
      } catch (error) {
        for (const waiter of batch) waiter.reject(error);
      }
    }
    lanes.delete(id);
  }

  return (key: StoreKey, limit: number, windowMs: number): Promise<WindowVerdict> => {
    const id = JSON.stringify([key, limit, windowMs]);
    let lane = lanes.get(id);
    const idle = !lane;
    if (!lane) {
      lane = { key: logKey(key), limit, windowMs, waiting: [] };
      lanes.set(id, lane);
    }
    const verdict = new Promise<WindowVerdict>((resolve, reject) => {
      lane.waiting.push({ resolve, reject });
    });
    // The first hit of an idle key commits at once; later ones wait for that commit to end.
    if (idle) drain(id, lane);
    return verdict;
  };
}

export interface KvRefund {
  key: StoreKey;
  hit: WindowHit;
  windowMs: number;
  clock: Clock;
}

/**
 * `refundWindow` for a Deno KV store: one hit less in the first pair counted at or after the
 * hit's time (compaction only ever moves hits later), with the same compare-and-set as a hit.
 * Nothing to take back (the hit left the window, the log expired) leaves the log as it is.
 */
export async function refundKvWindow(kv: Deno.Kv, refund: KvRefund): Promise<void> {
  const { hit, windowMs, clock } = refund;
  const key = logKey(refund.key);
  for (let attempt = 0; attempt < MAX_ATOMIC_ATTEMPTS; attempt++) {
    const cutoff = clock.now() - windowMs;
    // Gone from the window: a later pair holds other hits, not this one.
    if (hit.at <= cutoff) return;
    const entry = await kv.get<number[]>(key);
    const pairs = decode(entry.value).filter(([time]) => time > cutoff);
    const pair = pairs.find(([time, count]) => time >= hit.at && count > 0);
    if (!pair) return;
    pair[1] -= 1;
    const kept = pairs.filter(([, count]) => count > 0);
    const write = kv.atomic().check(entry);
    if (kept.length === 0) write.delete(key);
    else write.set(key, encode(kept), { expireIn: windowMs });
    if (await committed(write, attempt)) return;
  }
  throw new Error("rate window stayed contended");
}
