import type { StoreKey } from "./store.ts";

/**
 * Where the Upstash store keeps what, under a namespace prefix (default `shotline:`):
 * - `v:<key>`   a value: JSON `{ value, expiresAt }`, PX = its TTL;
 * - `b:<key>`   a blob head: JSON `{ version, chunks, size, meta, expiresAt }`;
 * - `c:<version>:<n>` the blob's chunks, base64 text, each with its own PX;
 * - `i:<prefix>` a sorted set per proper prefix of a blob key (member = the encoded key,
 *   score = expiresAt), so deleteBlobs(prefix) reads one small set instead of SCANning;
 * - `w:<key>`   a sliding-window log (sorted set of hit times).
 * `<key>` is the StoreKey encoded component-wise (see encodeKey).
 */
export function redisKeys(namespace: string) {
  return {
    value: (key: StoreKey) => `${namespace}v:${encodeKey(key)}`,
    head: (encoded: string) => `${namespace}b:${encoded}`,
    chunk: (version: string, n: number) => `${namespace}c:${version}:${n}`,
    index: (encodedPrefix: string) => `${namespace}i:${encodedPrefix}`,
    window: (key: StoreKey) => `${namespace}w:${encodeKey(key)}`,
  };
}

/** `["a", "b/c"]` -> `/a/b%2Fc`: component-wise, so `["u1"]` is no prefix of `["u10"]`. */
export function encodeKey(key: StoreKey): string {
  return key.map((part) => `/${encodeURIComponent(part)}`).join("");
}

/** The proper prefixes of an encoded key, shortest first: `/a/b` -> `""`, `/a`. */
export function prefixesOf(encoded: string): string[] {
  const levels: string[] = [];
  for (let i = encoded.indexOf("/"); i >= 0; i = encoded.indexOf("/", i + 1)) {
    levels.push(encoded.slice(0, i));
  }
  return levels;
}

// Lua scripts: each runs as one atomic server-side step through EVALSHA, falling back to EVAL
// when Redis answers NOSCRIPT (`@upstash/redis` createScript).

/**
 * Exact sliding-window log (the same algorithm as the Deno KV backend, so both backends admit
 * the same hits and report the same Reset).
 *
 * Why not `@upstash/ratelimit` (evaluated: 2.2.0): its slidingWindow weights two fixed windows,
 * an approximation that admits up to ~1.5x the limit within 60 s at a window boundary (20 hits
 * at the end of one window, then floor(20 x 0.5) = 10 more halfway into the next); its Reset is
 * the end of the fixed window, not when the oldest hit leaves; it reads Date.now() (no injected
 * clock); and its scripts start with `#!lua flags=allow-key-locking`, which stock Redis 7.0
 * rejects ("Unexpected flag in script shebang"), so it only runs on Upstash itself. Ours is ten
 * lines of ZREMRANGEBYSCORE/ZCARD/ZADD, bounded to `limit` members per key.
 * KEYS[1]: the window's sorted set (member per counted hit, score = hit time in ms).
 * ARGV: [1] now, [2] cutoff (= now - windowMs; hits at or before it left the window),
 * [3] limit, [4] a unique member for this hit, [5] windowMs.
 * Returns { allowed (1|0), hits counted after this one, score of the oldest counted hit }.
 */
export const SLIDING_WINDOW_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { allowed, count, oldest[2] or ARGV[1] }
`;

/**
 * Switches a blob's head to a new version whose chunks are already stored, and records the blob
 * in the index of every prefix of its key (for deleteBlobs), in one atomic step: a reader sees
 * the old head or the new one, never a mix.
 * KEYS[1]: the head; KEYS[2..]: the prefix indexes (sorted sets, member = encoded key,
 * score = expiresAt).
 * ARGV: [1] head JSON, [2] lifetime in ms (PX of head and indexes), [3] index member,
 * [4] expiresAt, [5] now (members whose expiresAt passed are pruned from the indexes).
 * Returns the previous head JSON (or nil), so the caller can retire the old chunks.
 */
export const COMMIT_BLOB_SCRIPT = `
local previous = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local lifetime = tonumber(ARGV[2])
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[4], ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[5])
  if redis.call('PTTL', KEYS[i]) < lifetime then
    redis.call('PEXPIRE', KEYS[i], lifetime)
  end
end
return previous
`;

/**
 * Sets a value only if it still holds the text read before (empty: nothing stored), so two
 * instances updating one record cannot both win.
 * KEYS[1]: the value; ARGV: [1] the text read (or ""), [2] the new text, [3] PX.
 * Returns 1 when set, 0 when another write came first.
 */
export const COMPARE_AND_SET_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if (current == false and ARGV[1] == '') or current == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`;
