/**
 * Where the Redis queue keeps its messages, under the store's namespace (default `shotline:`):
 * - `q:due`    a sorted set of messages waiting: member = envelope JSON `{ id, message }`,
 *   score = when it is due (epoch ms);
 * - `q:leased` a sorted set of messages some instance is running: same members,
 *   score = the lease deadline, renewed while the handler runs.
 * A member moves between the two sets and never changes, so every step below is a move of one
 * string. The `id` keeps two equal messages apart.
 */
export function queueKeys(namespace: string) {
  return { due: `${namespace}q:due`, leased: `${namespace}q:leased` };
}

// Lua scripts: each runs as one atomic server-side step through EVALSHA, falling back to EVAL
// when Redis answers NOSCRIPT (`@upstash/redis` createScript).

/**
 * Takes messages to run. First it returns to `due` every lease whose deadline passed (the
 * instance holding it died or lost Redis for longer than a lease), then it moves up to `limit`
 * due messages into `leased`: no other instance can take them until their lease runs out.
 * Both steps are bounded per call, so a backlog never makes one call slow.
 * KEYS[1]: due; KEYS[2]: leased.
 * ARGV: [1] now, [2] the new lease deadline, [3] limit, [4] most expired leases to return.
 * Returns the envelopes taken, oldest due first.
 */
export const CLAIM_SCRIPT = `
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, ARGV[4])
for _, member in ipairs(expired) do
  redis.call('ZREM', KEYS[2], member)
  redis.call('ZADD', KEYS[1], ARGV[1], member)
end
local taken = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(taken) do
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZADD', KEYS[2], ARGV[2], member)
end
return taken
`;

/**
 * Puts a leased message back to wait, due at ARGV[2] (a handler failed). Only a message still
 * leased moves: one whose lease already ran out went back to `due` by itself, and adding it
 * again would only repeat it.
 * KEYS[1]: due; KEYS[2]: leased. ARGV: [1] the envelope, [2] when it is due again.
 * Returns 1 when moved, 0 otherwise.
 */
export const RETRY_SCRIPT = `
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  return 1
end
return 0
`;
