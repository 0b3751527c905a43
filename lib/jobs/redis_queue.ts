import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { StoreUnavailableError, upstashClient } from "../store/upstash_redis.ts";
import { withTimeout } from "../timeout.ts";
import { checkedConcurrency, checkedDelayMs, CLOSE_WAIT_MS, RETRY_DELAY_MS } from "./kv_queue.ts";
import type { JobQueue, QueueHandler, QueueMessage } from "./queue.ts";
import { CLAIM_SCRIPT, queueKeys, RETRY_SCRIPT } from "./redis_queue_scripts.ts";

// A message is another instance's to take once its lease runs out: long enough that a busy
// instance renews it in time (every third of it), short enough that a killed one's work resumes.
const DEFAULT_LEASE_MS = 30_000;
// How often an idle instance looks for due messages (a local send wakes it at once).
const DEFAULT_IDLE_POLL_MS = 250;
// Messages taken per claim, at most: an instance leaves the rest to the others.
const MAX_CLAIM = 8;
// Expired leases returned per claim, so a large backlog never makes one script call slow.
const MAX_EXPIRED_PER_CLAIM = 100;
// Members per ZADD of a send: bounded requests however many messages a job has.
const SEND_BATCH = 100;
// Small commands: past this Redis counts as down, and the poller backs off.
const REQUEST_TIMEOUT_MS = 2_000;
// The longest pause between claims while Redis is down.
const MAX_BACKOFF_MS = 5_000;

export interface RedisQueueOptions {
  url: string;
  token: string;
  clock: Clock;
  log: Logger;
  /** Prefix of the queue's keys, the store's by default, so deployments can share a database. */
  namespace?: string;
  /** How long a taken message stays this instance's without a renewal; default 30 s. */
  leaseMs?: number;
  /** Pause between claims that found nothing; default 250 ms. */
  idlePollMs?: number;
}

interface Envelope {
  id: string;
  message: QueueMessage;
}

/**
 * The JobQueue on Redis through Upstash's REST API, shared by every instance (see
 * redis_queue_scripts.ts for the keys). An instance claims due messages only while it has a free
 * slot, so instances share the work; it holds each under a lease it renews while the handler
 * runs, and acknowledges by removing it. A killed instance's messages go back to `due` when their
 * lease runs out. A handler that throws has its message due again after RETRY_DELAY_MS.
 * Due times and lease deadlines come from each instance's `clock`: instances whose clocks
 * disagree by a good part of a lease would take each other's messages early (run twice, never
 * lost).
 */
export function createRedisQueue(options: RedisQueueOptions): JobQueue {
  const { clock, log } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const idlePollMs = options.idlePollMs ?? DEFAULT_IDLE_POLL_MS;
  const keys = queueKeys(options.namespace ?? "shotline:");
  // Members are our own JSON text, read back as the very strings to remove or move.
  const redis = upstashClient({
    url: options.url,
    token: options.token,
    timeoutMs: REQUEST_TIMEOUT_MS,
  });
  const claimScript = redis.createScript<string[]>(CLAIM_SCRIPT);
  const retryScript = redis.createScript<number>(RETRY_SCRIPT);
  const pause = new Pause();
  const running = new Set<Promise<void>>();
  let poller: Promise<void> | null = null;
  let closed = false;

  async function claim(limit: number): Promise<string[]> {
    const now = clock.now();
    return await claimScript.exec(
      [keys.due, keys.leased],
      [String(now), String(now + leaseMs), String(limit), String(MAX_EXPIRED_PER_CLAIM)],
    );
  }

  /** Puts a leased message back to wait, due after `delayMs` (0: for anyone, at once). */
  async function putBack(member: string, delayMs: number) {
    try {
      await retryScript.exec([keys.due, keys.leased], [member, String(clock.now() + delayMs)]);
    } catch (error) {
      // Its lease runs out instead, and then it is due again anyway.
      log.warn("queue: could not put a message back", { error: unavailable("retry", error) });
    }
  }

  async function poll(handler: QueueHandler, concurrency: number) {
    let backoffMs = 0;
    while (!closed) {
      const free = concurrency - running.size;
      if (free === 0) {
        await pause.sleep(Infinity); // woken when a handler ends, or by close
        continue;
      }
      const limit = Math.min(free, MAX_CLAIM);
      let taken: string[];
      try {
        taken = await claim(limit);
      } catch (error) {
        // Warn once per outage; the service keeps running and polls again, slower and slower.
        if (backoffMs === 0) {
          log.warn("queue: Redis unreachable", { error: unavailable("claim", error) });
        }
        backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(idlePollMs, backoffMs * 2));
        await pause.sleep(backoffMs);
        continue;
      }
      if (backoffMs > 0) log.info("queue: Redis reachable again");
      backoffMs = 0;
      // Taken while close() began: hand them straight back rather than start them.
      if (closed) await Promise.all(taken.map((member) => putBack(member, 0)));
      else for (const member of taken) start(member, handler);
      if (taken.length < limit) await pause.sleep(idlePollMs);
    }
  }

  function start(member: string, handler: QueueHandler) {
    const run = runLeased(member, handler).finally(() => {
      running.delete(run);
      pause.wake();
    });
    running.add(run);
  }

  async function runLeased(member: string, handler: QueueHandler) {
    const message = messageOf(member);
    if (!message) {
      log.error("queue: dropping an unreadable message", { member: member.slice(0, 200) });
      return acknowledge(member);
    }
    const lease = new LeaseRenewal(() => renew(member), leaseMs / 3);
    let failure: { error: unknown } | null = null;
    try {
      await handler(message);
    } catch (error) {
      failure = { error };
    } finally {
      await lease.stop();
    }
    if (failure) {
      log.error("queue: handler failed; message due again", {
        kind: message.kind,
        error: failure.error,
      });
      return putBack(member, RETRY_DELAY_MS);
    }
    await acknowledge(member);
  }

  async function acknowledge(member: string) {
    try {
      await redis.zrem(keys.leased, member);
    } catch (error) {
      // Not acknowledged: delivered again once the lease runs out (handlers are idempotent).
      log.warn("queue: could not acknowledge a message", { error: unavailable("ack", error) });
    }
  }

  async function renew(member: string) {
    try {
      // XX: a message acknowledged (or taken back) meanwhile is not leased again.
      await redis.zadd(keys.leased, { xx: true }, { score: clock.now() + leaseMs, member });
    } catch (error) {
      log.warn("queue: could not renew a lease", { error: unavailable("renew", error) });
    }
  }

  return {
    kind: "upstash-redis",

    async send(messages, sendOptions) {
      const delayMs = checkedDelayMs(sendOptions?.delayMs);
      const dueAt = clock.now() + delayMs;
      for (let i = 0; i < messages.length; i += SEND_BATCH) {
        const [first, ...rest] = messages.slice(i, i + SEND_BATCH).map((message) => ({
          score: dueAt,
          member: JSON.stringify({ id: crypto.randomUUID(), message } satisfies Envelope),
        }));
        try {
          await redis.zadd(keys.due, first, ...rest);
        } catch (error) {
          throw new StoreUnavailableError("queue send", error);
        }
      }
      if (delayMs === 0) pause.wake();
    },

    listen(handler, { concurrency }) {
      if (poller) throw new Error("queue: listen() was already called");
      const slots = checkedConcurrency(concurrency);
      poller = poll(handler, slots).catch((error) => {
        log.error("queue: poller stopped", { error });
      });
    },

    async close() {
      closed = true;
      pause.wake();
      await poller;
      try {
        await withTimeout(Promise.all(running), CLOSE_WAIT_MS, "queue handlers running at close");
      } catch (error) {
        log.warn("queue: closed with handlers still running", { error });
      }
    },
  };
}

function messageOf(member: string): QueueMessage | null {
  try {
    const envelope = JSON.parse(member) as Partial<Envelope>;
    return envelope.message ?? null;
  } catch {
    return null;
  }
}

function unavailable(operation: string, error: unknown): string {
  return new StoreUnavailableError(`queue ${operation}`, error).message;
}

/** A sleep that `wake()` cuts short; a wake with nobody asleep skips the next sleep. */
class Pause {
  #wake: (() => void) | null = null;
  #pending = false;

  sleep(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
      if (Number.isFinite(ms)) timer = setTimeout(this.#wake, ms);
    });
  }

  wake() {
    if (this.#wake) this.#wake();
    else this.#pending = true;
  }
}

/** Runs `renew` every `everyMs` until stopped; `stop()` also waits for a renewal under way. */
class LeaseRenewal {
  #timer: ReturnType<typeof setInterval>;
  #inFlight: Promise<void> | null = null;

  constructor(renew: () => Promise<void>, everyMs: number) {
    this.#timer = setInterval(() => {
      // One at a time: a slow Redis must not pile up renewals.
      this.#inFlight ??= renew().finally(() => this.#inFlight = null);
    }, everyMs);
  }

  async stop() {
    clearInterval(this.#timer);
    await this.#inFlight;
  }
}
