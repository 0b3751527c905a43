/**
 * The record of every job in the shared store: what was asked (the requests, written once) and
 * where each item stands (one small state record, changed only by compare-and-set). The queue
 * delivers a message at least once; the board is what makes a second delivery harmless: an
 * item is claimed by one run at a time, a run's result counts only if its claim is still the
 * item's, and an item finishes once.
 */
import type { Clock } from "../clock.ts";
import type { Store } from "../store/store.ts";
import type { ItemState, JobState, JobStatus, StoredItemResult, WebhookProgress } from "./types.ts";

// A run renews its claim while it works; a claim not renewed for this long is a dead instance's.
export const CLAIM_LEASE_MS = 20_000;
// Compare-and-set rounds before a write gives up (dozens of runs finishing at the same moment).
const MAX_CAS_ROUNDS = 64;

const stateKey = (id: string) => ["jobs", id, "state"];
const requestsKey = (id: string) => ["jobs", id, "requests"];
const resultKey = (id: string, item: number, claim: string) => [
  "jobs",
  id,
  "result",
  String(item),
  claim,
];

/** Why a delivery of an item has nothing to run. */
export type ClaimRefusal =
  /** Finished (done, failed or cancelled), or the job is gone. */
  | "finished"
  /** Another run holds a live claim on it. */
  | "claimed";

/** A run's hold on an item, to renew and to finish with. */
export interface ItemClaim {
  claim: string;
  /** Runs of the item so far, this one included. */
  tries: number;
}

export type ClaimOutcome =
  | { claimed: ItemClaim }
  | { refused: ClaimRefusal }
  /** Past its tries: failed now; `jobFinished` when it was the job's last unfinished item. */
  | { exhausted: { jobFinished: boolean } };

/** What finishing an item did. */
export interface FinishOutcome {
  /** False when the claim was no longer the item's (another run owns the result). */
  applied: boolean;
  state: JobState | null;
  /** True for exactly one finish: the one that left no item unfinished. */
  jobFinished: boolean;
}

export interface JobBoard {
  create(state: JobState, requests: unknown[]): Promise<void>;
  get(id: string): Promise<JobState | null>;
  requestsOf(id: string): Promise<unknown[] | null>;
  claim(id: string, item: number, maxTries: number): Promise<ClaimOutcome>;
  /** Extends a live claim; false once it is no longer the item's. */
  renew(id: string, item: number, claim: string): Promise<boolean>;
  /**
   * Gives a claim back: queued again, its try not counted (the item was not admitted), or
   * counted with `{ countTry: true }` (the run failed in a way worth another).
   */
  release(id: string, item: number, claim: string, options?: { countTry?: boolean }): Promise<void>;
  /** Records the result of a claimed run, then the item as done or failed. */
  finish(id: string, item: number, claim: string, result: StoredItemResult): Promise<FinishOutcome>;
  /** The result of a finished item. */
  resultOf(id: string, item: number): Promise<StoredItemResult | null>;
  /** Cancels every queued item; the job ends once its running items are over. */
  cancel(id: string): Promise<{ state: JobState; jobFinished: boolean } | null>;
  /** Records what became of a webhook event's delivery. */
  recordWebhook(id: string, event: string, progress: WebhookProgress): Promise<void>;
}

/** Thrown when a record stays contended past MAX_CAS_ROUNDS (the caller retries later). */
export class BoardContended extends Error {
  constructor(id: string) {
    super(`job ${id}: its record kept changing under ${MAX_CAS_ROUNDS} writes`);
    this.name = "BoardContended";
  }
}

const FINAL: ReadonlySet<ItemState["status"]> = new Set(["done", "failed", "cancelled"]);

/** Whether an item will not change any more. */
export function isFinal(item: ItemState): boolean {
  return FINAL.has(item.status);
}

/** Removes fields (rather than setting them undefined, which only some stores drop). */
function forget(item: ItemState, ...fields: (keyof ItemState)[]): void {
  for (const field of fields) delete item[field];
}

/** The job's status from its items: running until every item is final. */
function statusOf(state: JobState): JobStatus {
  const { items } = state;
  if (!items.every(isFinal)) {
    return items.some((item) => item.status !== "queued" && item.status !== "cancelled")
      ? "running"
      : state.status === "running"
      ? "running"
      : "queued";
  }
  if (items.some((item) => item.status === "cancelled")) return "cancelled";
  if (items.every((item) => item.status === "failed")) return "failed";
  return "done";
}

/** The board on the service's store; records live until the job's `expiresAt`. */
export function createJobBoard(deps: { store: Store; clock: Clock }): JobBoard {
  const { store, clock } = deps;
  const ttlOf = (state: JobState) => Math.max(1, state.expiresAt - clock.now());

  /**
   * Reads the job's state, lets `change` edit a copy (or say there is nothing to write) and
   * writes it back if nobody else wrote in between; otherwise reads again.
   */
  async function update<R>(
    id: string,
    change: (state: JobState) => { write: boolean; result: R },
  ): Promise<{ state: JobState; result: R } | null> {
    for (let round = 0; round < MAX_CAS_ROUNDS; round++) {
      const read = await store.getVersioned<JobState>(stateKey(id));
      if (!read.value) return null;
      const state = structuredClone(read.value);
      const { write, result } = change(state);
      if (!write) return { state: read.value, result };
      if (await store.setValueIfVersion(stateKey(id), state, read.version, ttlOf(state))) {
        return { state, result };
      }
      // Someone else wrote: a short random pause spreads the next round of many writers.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (round + 1)));
    }
    throw new BoardContended(id);
  }

  /** Marks the job finished when `state` has no unfinished item left. */
  function settle(state: JobState): boolean {
    const wasFinished = state.finishedAt !== undefined;
    state.status = statusOf(state);
    const finished = state.items.every(isFinal);
    if (finished && !wasFinished) state.finishedAt = clock.now();
    return finished && !wasFinished;
  }

  return {
    async create(state, requests) {
      // The requests first: a state the workers can see always has its requests.
      await store.setBlob(
        requestsKey(state.id),
        { bytes: new TextEncoder().encode(JSON.stringify(requests)), meta: {} },
        ttlOf(state),
      );
      if (!await store.setValueIfVersion(stateKey(state.id), state, null, ttlOf(state))) {
        throw new Error(`job ${state.id} exists already`);
      }
    },

    get: (id) => store.getValue<JobState>(stateKey(id)),

    async requestsOf(id) {
      const blob = await store.getBlob(requestsKey(id));
      return blob ? JSON.parse(new TextDecoder().decode(blob.bytes)) as unknown[] : null;
    },

    async claim(id, n, maxTries) {
      const now = clock.now();
      const claim = crypto.randomUUID();
      const updated = await update<ClaimOutcome>(id, (state) => {
        const item = state.items[n];
        if (!item || isFinal(item)) return { write: false, result: { refused: "finished" } };
        if (item.status === "running" && (item.leaseUntil ?? 0) > now) {
          return { write: false, result: { refused: "claimed" } };
        }
        if (item.tries >= maxTries) {
          // The last run died without an answer: it will not get another.
          Object.assign(item, { status: "failed", finishedAt: now, exhaustedAfter: item.tries });
          forget(item, "claim", "leaseUntil");
          return { write: true, result: { exhausted: { jobFinished: settle(state) } } };
        }
        Object.assign(item, {
          status: "running",
          tries: item.tries + 1,
          claim,
          leaseUntil: now + CLAIM_LEASE_MS,
          startedAt: item.startedAt ?? now,
        });
        state.startedAt ??= now;
        settle(state);
        return { write: true, result: { claimed: { claim, tries: item.tries } } };
      });
      return updated?.result ?? { refused: "finished" };
    },

    async renew(id, n, claim) {
      const updated = await update(id, (state) => {
        const item = state.items[n];
        if (item?.status !== "running" || item.claim !== claim) {
          return { write: false, result: false };
        }
        item.leaseUntil = clock.now() + CLAIM_LEASE_MS;
        return { write: true, result: true };
      });
      return updated?.result ?? false;
    },

    async release(id, n, claim, options = {}) {
      await update(id, (state) => {
        const item = state.items[n];
        if (item?.status !== "running" || item.claim !== claim) {
          return { write: false, result: undefined };
        }
        Object.assign(item, { status: "queued", tries: item.tries - (options.countTry ? 0 : 1) });
        forget(item, "claim", "leaseUntil");
        settle(state);
        return { write: true, result: undefined };
      });
    },

    async finish(id, n, claim, result) {
      const current = await store.getValue<JobState>(stateKey(id));
      const held = current?.items[n];
      if (!current || held?.status !== "running" || held.claim !== claim) {
        return { applied: false, state: current, jobFinished: false };
      }
      // The result is written under the claim before the state points at it: a reader never
      // finds a finished item without its result, and a stale run's result is never read.
      await store.setBlob(
        resultKey(id, n, claim),
        { bytes: new TextEncoder().encode(JSON.stringify(result)), meta: {} },
        ttlOf(current),
      );
      const updated = await update(id, (state) => {
        const item = state.items[n];
        if (item?.status !== "running" || item.claim !== claim) {
          return { write: false, result: { applied: false, jobFinished: false } };
        }
        Object.assign(item, { status: result.ok ? "done" : "failed", finishedAt: clock.now() });
        forget(item, "leaseUntil");
        const jobFinished = settle(state);
        return { write: true, result: { applied: true, jobFinished } };
      });
      return {
        applied: updated?.result.applied ?? false,
        state: updated?.state ?? null,
        jobFinished: updated?.result.jobFinished ?? false,
      };
    },

    async resultOf(id, n) {
      const state = await store.getValue<JobState>(stateKey(id));
      const item = state?.items[n];
      if (!item || (item.status !== "done" && item.status !== "failed") || !item.claim) {
        return null;
      }
      const blob = await store.getBlob(resultKey(id, n, item.claim));
      return blob ? JSON.parse(new TextDecoder().decode(blob.bytes)) as StoredItemResult : null;
    },

    async cancel(id) {
      const now = clock.now();
      const updated = await update(id, (state) => {
        let changed = false;
        for (const item of state.items) {
          if (item.status !== "queued") continue;
          Object.assign(item, { status: "cancelled", finishedAt: now });
          changed = true;
        }
        if (!changed) return { write: false, result: false };
        state.cancelledAt ??= now;
        return { write: true, result: settle(state) };
      });
      return updated ? { state: updated.state, jobFinished: updated.result } : null;
    },

    async recordWebhook(id, event, progress) {
      await update(id, (state) => {
        if (!state.webhook) return { write: false, result: undefined };
        state.webhook.deliveries = { ...state.webhook.deliveries, [event]: progress };
        return { write: true, result: undefined };
      });
    },
  };
}
