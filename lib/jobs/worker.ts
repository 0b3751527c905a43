/**
 * Runs what the job queue delivers, on every instance: a job's items (paced by the submitter's
 * per-IP allowance, captured like a synchronous request, written to object storage) and the
 * job's webhooks (signed, through the webhooks' egress boundary, retried on a schedule). Every
 * delivery may be a repeat: the board decides whether there is still work.
 */
import {
  ApiError,
  errorEnvelope,
  internalError,
  invalidRequest,
  upstreamUnavailable,
} from "../errors.ts";
import { ObjectStorageFailed, ObjectTooLarge } from "../storage/types.ts";
import type { Logger } from "../log.ts";
import type { ObjectStorage } from "../storage/types.ts";
import { refusedBeforeWork } from "../capture/types.ts";
import { typedFailureError } from "../capture/failures.ts";
import { BoardContended, CLAIM_LEASE_MS, type JobBoard } from "./board.ts";
import type { JobQueue, QueueMessage } from "./queue.ts";
import type { JobState, StoredItemResult } from "./types.ts";
import type { JobWebhooks } from "./webhook_events.ts";

/** One item's capture as the worker stores it. */
export interface ItemCapture {
  bytes: Uint8Array;
  contentType: string;
  /** File extension of the bytes (png, pdf, mp4...). */
  extension: string;
  /** The synchronous answer's fields without the bytes. */
  facts: Record<string, unknown>;
}

/** A turn of a client's per-IP allowance: taken (and returnable), or when to ask again. */
export type PacingTurn =
  | { allowed: true; giveBack(): Promise<void> }
  | { allowed: false; retryInMs: number };

/** Takes one turn of the allowance of `client` (a rate-limit bucket). */
export type Pacer = (client: string) => Promise<PacingTurn>;

/** Captures one item's request; throws an ApiError for what the caller would have been told. */
export type ItemRunner = (
  request: unknown,
  context: { signal: AbortSignal; logFields: Record<string, unknown> },
) => Promise<ItemCapture>;

export interface JobWorkerDeps {
  board: JobBoard;
  queue: JobQueue;
  /** The per-IP limit of synchronous captures, counted as items are admitted. */
  pace: Pacer;
  objectStorage: ObjectStorage;
  webhooks: JobWebhooks;
  log: Logger;
  runItem: ItemRunner;
  config: {
    JOB_ITEM_MAX_TRIES: number;
    JOB_CONCURRENCY?: number;
    MAX_CONCURRENT_CAPTURES: number;
  };
}

// A run the render queue refused (busy) or the board could not write waits this long.
const BUSY_RETRY_MS = 2_000;
// Items running beyond the browser's concurrency by default (see start()).
const EXTRA_ITEMS_IN_FLIGHT = 2;
// Jobs whose requests one instance keeps in memory.
const REMEMBERED_JOBS = 8;
// Items paced by the per-IP window are spread over this much past its reset.
const PACING_JITTER_MS = 500;

export interface JobWorker {
  /** Starts taking messages from the queue on this instance. */
  start(): void;
  /** Stops taking messages and waits for the runs in progress. */
  close(): Promise<void>;
}

/** The worker of one instance. */
export function createJobWorker(deps: JobWorkerDeps): JobWorker {
  const { board, queue, log, config } = deps;

  async function handle(message: QueueMessage): Promise<void> {
    try {
      if (message.kind === "item") await runItem(message.jobId, message.item);
      else await deps.webhooks.deliver(message);
    } catch (error) {
      if (!(error instanceof BoardContended)) throw error;
      log.warn("job record contended; trying again", { jobId: message.jobId });
      await queue.send([message], { delayMs: BUSY_RETRY_MS });
    }
  }

  /** Sends the job's completion event once, when `finished` says this run ended the job. */
  async function afterItem(state: JobState | null, item: number, finished: boolean) {
    if (!state) return;
    await deps.webhooks.itemFinished(state, item);
    if (finished) {
      log.info("job finished", { jobId: state.id, status: state.status, total: state.total });
      await deps.webhooks.jobFinished(state);
    }
  }

  async function runItem(jobId: string, item: number): Promise<void> {
    const state = await board.get(jobId);
    const current = state?.items[item];
    if (!state || !current || !["queued", "running"].includes(current.status)) return;
    // Paced, not refused: an item past the submitter's allowance waits for its turn.
    const turn = await deps.pace(state.client);
    if (!turn.allowed) {
      await queue.send([{ kind: "item", jobId, item }], {
        delayMs: turn.retryInMs + Math.floor(Math.random() * PACING_JITTER_MS),
      });
      return;
    }
    const refund = () => turn.giveBack();
    const claimed = await board.claim(jobId, item, config.JOB_ITEM_MAX_TRIES);
    if ("refused" in claimed) {
      await refund();
      // The holder may be dead (Deno KV redelivers a killed instance's messages as soon as the
      // store reopens, while its claim still looks live): look again once the claim could lapse.
      // A live holder will have finished by then, and that delivery is simply dropped.
      if (claimed.refused === "claimed") {
        await queue.send([{ kind: "item", jobId, item }], { delayMs: CLAIM_LEASE_MS });
      }
      return;
    }
    if ("exhausted" in claimed) {
      await refund();
      log.warn("job item out of tries", { jobId, item, tries: config.JOB_ITEM_MAX_TRIES });
      return await afterItem(await board.get(jobId), item, claimed.exhausted.jobFinished);
    }
    const { claim, tries } = claimed.claimed;
    const logFields: Record<string, unknown> = { jobId, item, tries };
    const started = performance.now();
    // The claim is renewed while the capture runs, so only a dead instance's claim lapses.
    const renewal = setInterval(() => {
      board.renew(jobId, item, claim).catch((error) =>
        log.warn("job claim renewal failed", { jobId, item, error })
      );
    }, CLAIM_LEASE_MS / 3);
    let result: StoredItemResult;
    try {
      const requests = await requestsOf(jobId);
      if (!requests) return;
      const capture = await deps.runItem(requests[item], {
        signal: AbortSignal.timeout(10 * 60_000),
        logFields,
      });
      const key = `jobs/${jobId}/${item}-${claim.slice(0, 8)}.${capture.extension}`;
      await deps.objectStorage.put(key, capture.bytes, {
        contentType: capture.contentType,
        contentDisposition: `inline; filename="${jobId}-${item}.${capture.extension}"`,
      });
      result = {
        ok: true,
        result: capture.facts,
        object: { key, contentType: capture.contentType, bytes: capture.bytes.byteLength },
      };
    } catch (error) {
      if (refusedBeforeWork(error)) {
        // The render queue was full: no work done, so neither the try nor the turn counts.
        await board.release(jobId, item, claim);
        await refund();
        await queue.send([{ kind: "item", jobId, item }], { delayMs: BUSY_RETRY_MS });
        return;
      }
      const answer = apiErrorOf(error);
      // Worth another run: something unexpected, or the result storage failing for a moment.
      const retryable = answer.code === "internal_error" || error instanceof ObjectStorageFailed;
      if (retryable && tries < config.JOB_ITEM_MAX_TRIES) {
        log.error("job item failed; trying again", { ...logFields, error });
        await board.release(jobId, item, claim, { countTry: true });
        await queue.send([{ kind: "item", jobId, item }], { delayMs: BUSY_RETRY_MS * tries });
        return;
      }
      if (answer.status >= 500) log.warn("job item failed", { ...logFields, code: answer.code });
      result = { ok: false, error: errorEnvelope(answer, state.baseUrl) };
    } finally {
      clearInterval(renewal);
    }
    const finished = await board.finish(jobId, item, claim, result);
    log.info("job item", {
      ...logFields,
      outcome: result.ok ? "done" : result.error.code,
      applied: finished.applied,
      ms: Math.round(performance.now() - started),
    });
    if (finished.applied) await afterItem(finished.state, item, finished.jobFinished);
  }

  // A job's requests are read once per instance, not once per item (a job of html documents
  // may carry megabytes of them); a few jobs at a time run on one instance.
  const requestsByJob = new Map<string, Promise<unknown[] | null>>();
  function requestsOf(jobId: string): Promise<unknown[] | null> {
    let requests = requestsByJob.get(jobId);
    if (!requests) {
      requests = board.requestsOf(jobId);
      requests.catch(() => requestsByJob.delete(jobId));
      if (requestsByJob.size >= REMEMBERED_JOBS) {
        requestsByJob.delete(requestsByJob.keys().next().value!);
      }
      requestsByJob.set(jobId, requests);
    }
    return requests;
  }

  let started = false;
  return {
    start() {
      if (started) return;
      started = true;
      // Two more than the browser's pages: an item spends part of its run on store round trips
      // (claim, result, finish), during which another item's page can render; the render queue
      // still keeps the browser at MAX_CONCURRENT_CAPTURES (bench/README.md, Jobs).
      const concurrency = config.JOB_CONCURRENCY ??
        config.MAX_CONCURRENT_CAPTURES + EXTRA_ITEMS_IN_FLIGHT;
      queue.listen(handle, { concurrency });
      log.info("job worker", { queue: queue.kind, concurrency });
    },
    close: () => queue.close(),
  };
}

/** The ApiError a failed run answers with; anything unexpected is an internal error. */
function apiErrorOf(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ObjectTooLarge) {
    return invalidRequest(
      `The result is ${error.size} bytes, over the ${error.maxBytes}-byte bound of this ` +
        "server's result storage.",
      {
        status: 413,
        hint: "Capture a smaller area or a lighter format, or ask the operator to configure an " +
          "S3 bucket (S3_*), which has no such bound.",
      },
    );
  }
  if (error instanceof ObjectStorageFailed) {
    return upstreamUnavailable("The result could not be written to object storage.", {
      hint: "Submit the item again later; the operator's log names the storage's error.",
    });
  }
  return typedFailureError(error) ?? internalError("The capture failed unexpectedly.");
}
