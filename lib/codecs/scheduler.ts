/**
 * Admission control for CPU-bound exports: a fixed number of slots (one per core), one extra
 * slot only small images may use, and a FIFO queue bounded by expected wait and by the upload
 * bytes it holds. Past either it is a 503, never an unbounded pile of uploads held in memory.
 */
import { ExportFailure } from "./errors.ts";

export interface SchedulerOptions {
  /** Regular slots: jobs of any size (one per core). */
  slots: number;
  /** Extra slots reserved for small images, so a phone-sized export never waits behind 1080p. */
  smallSlots: number;
  /** Largest image (pixels) that may use a small slot. */
  smallMaxPixels: number;
  /** Jobs allowed to wait; one more is refused with 503 (a ceiling: time admits first). */
  maxQueue: number;
  /** Longest expected time to finish a newly reserved upload's export (default 10 s). */
  budgetMs?: number;
  /** Most upload bytes reserved at once: each is held in memory, parsed, then exported. */
  maxReservedBytes?: number;
}

// Seconds a client should wait after the queue's hard ceiling: it drains in about that long.
export const BUSY_RETRY_AFTER_SECONDS = 2;
// A client waits for its export; past about 10 s of queue it had better come back later.
export const EXPORT_QUEUE_BUDGET_MS = 10_000;
// An upload is held as its bytes, the parsed form and the decoded input: about three copies.
// 16 MiB of uploads in flight kept a flood of 256 x 5 MB under 300 MB (bench/README.md).
export const MAX_RESERVED_UPLOAD_BYTES = 16 * 1024 * 1024;
// Before any export was measured: a 1080p JPEG takes about 0.5 s (bench/README.md).
const PRIOR_JOB_MS = 500;
const SMOOTHING = 0.2;

/** A slot lent by `borrow`. */
export interface SlotLease {
  slot: number;
  /** Whether an export is waiting for a slot (give this one back soon). */
  wanted(): boolean;
  release(): void;
}

interface Waiting {
  pixels: number;
  start: (slot: number) => void;
}

/** Runs jobs on numbered slots; `run` resolves with the job's result once a slot was free. */
export class JobScheduler {
  readonly #options: SchedulerOptions;
  readonly #busy: boolean[];
  readonly #queue: Waiting[] = [];
  #reserved = 0;
  #reservedBytes = 0;
  #jobMs = PRIOR_JOB_MS;

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#busy = new Array(options.slots + options.smallSlots).fill(false);
  }

  /** Jobs running and waiting, for logs and tests. */
  get load(): { running: number; queued: number } {
    return { running: this.#busy.filter(Boolean).length, queued: this.#queue.length };
  }

  /** The smoothed duration of an export, for logs and tests. */
  get jobMs(): number {
    return Math.round(this.#jobMs);
  }

  /**
   * Holds a place for an upload of `bytes` before its body is read, so refused uploads cost
   * neither parsing nor memory. Admitted by time: while every reserved export plus this one
   * would finish within the budget at the measured rate; and by memory: while the reserved
   * bytes stay under their cap (one upload is always let in). Returns the release function.
   */
  reserve(bytes = 0): () => void {
    const lanes = this.#busy.length;
    const budgetMs = this.#options.budgetMs ?? EXPORT_QUEUE_BUDGET_MS;
    const maxBytes = this.#options.maxReservedBytes ?? MAX_RESERVED_UPLOAD_BYTES;
    const ahead = this.#reserved + 1;
    const late = (ahead * this.#jobMs) / lanes > budgetMs;
    const heavy = this.#reserved > 0 && this.#reservedBytes + bytes > maxBytes;
    if (late || heavy || this.#reserved >= lanes + this.#options.maxQueue) {
      // Until enough of what is reserved has been exported that this upload would fit.
      const fits = Math.floor((budgetMs * lanes) / this.#jobMs);
      const excess = Math.max(1, heavy ? this.#reserved : ahead - fits);
      throw busyError(Math.max(1, Math.ceil((excess * this.#jobMs) / lanes / 1000)));
    }
    this.#reserved++;
    this.#reservedBytes += bytes;
    let released = false;
    return () => {
      if (!released) {
        this.#reserved--;
        this.#reservedBytes -= bytes;
      }
      released = true;
    };
  }

  /** Runs `job` on a free slot (waiting in the queue if none); 503 when the queue is full. */
  async run<T>(pixels: number, job: (slot: number) => Promise<T>): Promise<T> {
    let slot = this.#freeSlotFor(pixels);
    if (slot === undefined) {
      // Bounded: each waiting job holds its whole upload in memory.
      if (this.#queue.length >= this.#options.maxQueue) {
        throw busyError(BUSY_RETRY_AFTER_SECONDS);
      }
      slot = await new Promise<number>((start) => this.#queue.push({ pixels, start }));
    }
    this.#busy[slot] = true;
    const started = performance.now();
    try {
      return await job(slot);
    } finally {
      this.#jobMs += SMOOTHING * (performance.now() - started - this.#jobMs);
      this.#release(slot);
    }
  }

  /**
   * An idle regular slot lent to a running export for extra work (more bands of its PNG), only
   * while no export waits: spare cores speed up the exports there are, never at the cost of one
   * that waits. `wanted` turns true once an export is waiting, so the borrower gives the slot
   * back after its current piece; `release` hands it to the first waiting job.
   */
  borrow(): SlotLease | undefined {
    if (this.#queue.length > 0) return undefined;
    const slot = this.#busy.findIndex((busy, i) => !busy && !this.#isSmallSlot(i));
    if (slot === -1) return undefined;
    this.#busy[slot] = true;
    let released = false;
    return {
      slot,
      wanted: () => this.#queue.length > 0,
      release: () => {
        if (!released) this.#release(slot);
        released = true;
      },
    };
  }

  #isSmallSlot(slot: number): boolean {
    return slot >= this.#options.slots;
  }

  #fits(slot: number, pixels: number): boolean {
    return !this.#isSmallSlot(slot) || pixels <= this.#options.smallMaxPixels;
  }

  /** Small images try the small slots first, leaving the regular ones to large images. */
  #freeSlotFor(pixels: number): number | undefined {
    const slots = this.#busy.map((_, i) => i);
    if (pixels <= this.#options.smallMaxPixels) slots.reverse();
    return slots.find((i) => !this.#busy[i] && this.#fits(i, pixels));
  }

  #release(slot: number): void {
    this.#busy[slot] = false;
    const next = this.#queue.findIndex((waiting) => this.#fits(slot, waiting.pixels));
    if (next === -1) return;
    const [waiting] = this.#queue.splice(next, 1);
    this.#busy[slot] = true; // claimed now, so a job arriving meanwhile cannot take it
    waiting.start(slot);
  }
}

function busyError(retryAfterS: number): ExportFailure {
  return new ExportFailure({ kind: "busy", retryAfterS });
}
