/**
 * A job as its submitter sees it (GET /api/jobs/{id}, the MCP tool, the webhooks): its status,
 * counts, links, and per item the result (the synchronous answer's fields plus `imageUrl`) or
 * the error envelope. Finished results never change, so each instance keeps the recent ones.
 */
import type { Clock } from "../clock.ts";
import { errorAnchor, type ErrorEnvelope } from "../errors.ts";
import type { ObjectStorage } from "../storage/types.ts";
import type { JobBoard } from "./board.ts";
import type {
  ItemState,
  ItemStatus,
  JobState,
  StoredItemResult,
  WebhookProgress,
} from "./types.ts";

// Results read back recently (jobs polled until done are read over and over).
const RESULT_MEMORY = 2_000;
// S3 presigned URLs work at most a week.
const MAX_URL_SECONDS = 7 * 24 * 3600;

export interface ItemView {
  index: number;
  status: ItemStatus;
  tries: number;
  startedAt?: string;
  finishedAt?: string;
  result?: Record<string, unknown> & { imageUrl: string; bytes: number; contentType: string };
  error?: ErrorEnvelope;
  links: { image?: string };
}

export interface JobView {
  id: string;
  status: JobState["status"];
  total: number;
  counts: Record<ItemStatus, number>;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  expiresAt: string;
  links: { self: string };
  webhook?: { url: string; events: string[]; deliveries: Record<string, WebhookProgress> };
  items: ItemView[];
}

export interface JobViews {
  /** The whole job, every item's result read. */
  view(state: JobState): Promise<JobView>;
  /** One finished item as the job view shows it. */
  item(state: JobState, index: number): Promise<ItemView>;
  /** The stored result of a finished item (with its object's key), or null. */
  result(state: JobState, index: number): Promise<StoredItemResult | null>;
}

const iso = (ms: number | undefined) => ms === undefined ? undefined : new Date(ms).toISOString();

/** The links of a job at the address it was submitted to. */
export function jobLinks(state: JobState) {
  const self = `${state.baseUrl}/api/jobs/${state.id}`;
  return { self, item: (n: number) => `${self}/items/${n}` };
}

export function createJobViews(
  deps: { board: JobBoard; objectStorage: ObjectStorage; clock: Clock },
): JobViews {
  const { board, objectStorage, clock } = deps;
  const remembered = new Map<string, { result: StoredItemResult; url?: string }>();

  async function stored(state: JobState, n: number) {
    const claim = state.items[n]?.claim;
    const key = `${state.id}/${n}/${claim}`;
    const known = remembered.get(key);
    if (known) return known;
    const result = await board.resultOf(state.id, n);
    if (!result) return null;
    const entry: { result: StoredItemResult; url?: string } = { result };
    if (remembered.size >= RESULT_MEMORY) remembered.delete(remembered.keys().next().value!);
    remembered.set(key, entry);
    return entry;
  }

  async function urlOf(state: JobState, entry: { result: StoredItemResult; url?: string }) {
    if (!entry.result.ok) return undefined;
    if (entry.url) return entry.url;
    const seconds = Math.floor((state.expiresAt - clock.now()) / 1000);
    const url = await objectStorage.urlFor(entry.result.object.key, {
      expiresInSeconds: Math.min(MAX_URL_SECONDS, Math.max(1, seconds)),
      baseUrl: state.baseUrl,
    });
    // A store link does not change; a presigned URL is made afresh for its expiry.
    if (objectStorage.kind === "store") entry.url = url;
    return url;
  }

  async function item(state: JobState, n: number): Promise<ItemView> {
    const at: ItemState = state.items[n];
    const view: ItemView = {
      index: n,
      status: at.status,
      tries: at.tries,
      ...(at.startedAt ? { startedAt: iso(at.startedAt) } : {}),
      ...(at.finishedAt ? { finishedAt: iso(at.finishedAt) } : {}),
      links: {},
    };
    if (at.status === "failed" && at.exhaustedAfter !== undefined) {
      view.error = exhaustedEnvelope(at.exhaustedAfter, state.baseUrl);
    }
    if (at.status !== "done" && at.status !== "failed") return view;
    const entry = at.claim ? await stored(state, n) : null;
    if (!entry) return view;
    if (!entry.result.ok) {
      view.error = entry.result.error;
      return view;
    }
    const { object, result } = entry.result;
    view.result = {
      ...result,
      imageUrl: (await urlOf(state, entry))!,
      bytes: object.bytes,
      contentType: object.contentType,
    };
    view.links.image = jobLinks(state).item(n);
    return view;
  }

  return {
    async view(state) {
      const counts = { queued: 0, running: 0, done: 0, failed: 0, cancelled: 0 };
      for (const at of state.items) counts[at.status]++;
      const links = jobLinks(state);
      const items = await Promise.all(state.items.map((_, n) => item(state, n)));
      return {
        id: state.id,
        status: state.status,
        total: state.total,
        counts,
        createdAt: iso(state.createdAt)!,
        ...(state.startedAt ? { startedAt: iso(state.startedAt) } : {}),
        ...(state.finishedAt ? { finishedAt: iso(state.finishedAt) } : {}),
        expiresAt: iso(state.expiresAt)!,
        links: { self: links.self },
        ...(state.webhook
          ? {
            webhook: {
              url: state.webhook.url,
              events: state.webhook.events,
              deliveries: state.webhook.deliveries,
            },
          }
          : {}),
        items,
      };
    },
    item,
    async result(state, n) {
      return (await stored(state, n))?.result ?? null;
    },
  };
}

/** The envelope of an item whose runs all died (the instance was killed each time). */
function exhaustedEnvelope(tries: number, baseUrl: string): ErrorEnvelope {
  const message = `The capture was tried ${tries} times and no run finished.`;
  return {
    error: message,
    code: "internal_error",
    message,
    hint: "Submit the item again; if it keeps failing, the page may crash the browser.",
    status: 500,
    documentation: `${baseUrl}/docs#${errorAnchor("internal_error")}`,
  };
}
