/**
 * Admission control for CPU-bound exports: a fixed number of slots (one per core), one extra
 * slot only small images may use, and a bounded FIFO queue. A full queue is a 503, never an
 * unbounded pile of uploads held in memory.
 */
import { ApiError } from "../errors.ts";

export interface SchedulerOptions {
  /** Regular slots: jobs of any size (one per core). */
  slots: number;
  /** Extra slots reserved for small images, so a phone-sized export never waits behind 1080p. */
  smallSlots: number;
  /** Largest image (pixels) that may use a small slot. */
  smallMaxPixels: number;
  /** Jobs allowed to wait; one more is refused with 503. */
  maxQueue: number;
}

// Seconds a client should wait after a 503: a full queue drains in about that long on 2 cores.
export const BUSY_RETRY_AFTER_SECONDS = 2;

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

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#busy = new Array(options.slots + options.smallSlots).fill(false);
  }

  /** Jobs running and waiting, for logs and tests. */
  get load(): { running: number; queued: number } {
    return { running: this.#busy.filter(Boolean).length, queued: this.#queue.length };
  }

  /**
   * Holds a place for an upload before its body is read (503 when every slot and queue place is
   * held), so refused uploads cost neither parsing nor memory. Returns the release function.
   */
  reserve(): () => void {
    if (this.#reserved >= this.#busy.length + this.#options.maxQueue) throw busyError();
    this.#reserved++;
    let released = false;
    return () => {
      if (!released) this.#reserved--;
      released = true;
    };
  }

  /** Runs `job` on a free slot (waiting in the queue if none); 503 when the queue is full. */
  async run<T>(pixels: number, job: (slot: number) => Promise<T>): Promise<T> {
    let slot = this.#freeSlotFor(pixels);
    if (slot === undefined) {
      // Bounded: each waiting job holds its whole upload in memory.
      if (this.#queue.length >= this.#options.maxQueue) throw busyError();
      slot = await new Promise<number>((start) => this.#queue.push({ pixels, start }));
    }
    this.#busy[slot] = true;
    try {
      return await job(slot);
    } finally {
      this.#release(slot);
    }
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

function busyError(): ApiError {
  return new ApiError(503, "upstream_unavailable", "The image encoder is busy.", {
    hint: `Too many exports are in progress; retry after ${BUSY_RETRY_AFTER_SECONDS} seconds.`,
    headers: { "Retry-After": String(BUSY_RETRY_AFTER_SECONDS) },
  });
}
