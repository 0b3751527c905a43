/**
 * A small pool of Workers running the wasm codecs, so a large export never blocks the request
 * thread. Slots are assigned by the JobScheduler; each slot has its own Worker.
 */
import { CodecError } from "./errors.ts";
import type { PaletteBandRequest } from "./palette_bands.ts";
import type { BandRequest, DeflatedBand } from "./png_bands.ts";
import type { PngInput } from "./png_filters.ts";
import type { Quantised } from "./png_wasm.ts";
import type { ExportPlan } from "./presets.ts";
import type { WorkerJob, WorkerOutput, WorkerReply, WorkerRequest } from "./worker_types.ts";

// A worker that has not answered by then is stuck: it is replaced and the export fails.
export const WORKER_JOB_TIMEOUT_MS = 60_000;
// Wasm memory never shrinks: after an image this large the worker is replaced to return it.
export const RECYCLE_AFTER_PIXELS = 16_000_000;
// A worker that cannot load and warm its codecs in this long is considered broken.
const WORKER_START_TIMEOUT_MS = 30_000;

const WORKER_URL = new URL("./worker.ts", import.meta.url);

interface Pending {
  resolve: (output: WorkerOutput) => void;
  reject: (error: Error) => void;
}

/** One Worker with restart: a crash, timeout or failed job gets a fresh one. */
class PooledWorker {
  #worker?: Worker;
  #ready?: Promise<void>;
  #warm = false;
  #startTimer?: ReturnType<typeof setTimeout>;
  #abortStart?: (reason: Error) => void;
  #pending = new Map<number, Pending>();
  #nextId = 1;

  /** Starts the worker (once) and resolves when its codecs are warm. */
  start(): Promise<void> {
    if (this.#ready) return this.#ready;
    const worker = new Worker(WORKER_URL, { type: "module" });
    this.#worker = worker;
    this.#ready = new Promise<void>((resolve, reject) => {
      this.#abortStart = reject;
      const fail = (error: Error) => {
        reject(error);
        // A worker that never got warm is not restarted eagerly (no crash loop); the next job
        // tries again.
        if (this.#worker === worker) this.terminate(error);
      };
      this.#startTimer = setTimeout(
        () => fail(new Error("worker start timed out")),
        WORKER_START_TIMEOUT_MS,
      );
      worker.onmessage = ({ data }: MessageEvent<WorkerReply>) => {
        if (data.type === "ready") {
          clearTimeout(this.#startTimer);
          this.#warm = true;
          resolve();
        } else if (data.type === "failed") fail(new Error(data.message));
        else this.#settle(data);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        const error = new Error(`worker crashed: ${event.message}`);
        if (!this.#warm) fail(error);
        else if (this.#worker === worker) this.#restart(error);
      };
    });
    this.#ready.catch(() => {}); // observed by callers; never an unhandled rejection
    return this.#ready;
  }

  /**
   * Runs one job in this worker; its input buffer is transferred, not copied. `pixels` is the
   * image size the job touches, which decides whether the worker is replaced afterwards.
   */
  async run(job: WorkerJob, pixels: number): Promise<WorkerOutput> {
    await this.start();
    const worker = this.#worker!;
    const id = this.#nextId++;
    const buffer = "band" in job ? job.band.rows.buffer : job.input;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Wasm memory never shrinks, and a codec that failed may have trapped mid-way: either way
    // the worker is replaced after this job rather than reused.
    let replace = pixels > RECYCLE_AFTER_PIXELS;
    try {
      return await new Promise<WorkerOutput>((resolve, reject) => {
        this.#pending.set(id, { resolve, reject });
        timer = setTimeout(() => {
          this.#restart(new Error(`export timed out after ${WORKER_JOB_TIMEOUT_MS} ms`));
        }, WORKER_JOB_TIMEOUT_MS);
        const request: WorkerRequest = { id, job };
        worker.postMessage(request, [buffer as ArrayBuffer]);
      });
    } catch (error) {
      if (error instanceof CodecError) replace = true;
      throw error;
    } finally {
      clearTimeout(timer);
      if (replace && this.#worker === worker) this.#restart();
    }
  }

  /** Stops the worker; pending jobs fail. */
  terminate(reason = new Error("worker pool closed")): void {
    clearTimeout(this.#startTimer);
    this.#abortStart?.(reason); // a job waiting for this worker to warm up fails too
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#ready = undefined;
    this.#warm = false;
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
  }

  #settle(reply: Exclude<WorkerReply, { type: "ready" | "failed" }>): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (reply.type === "done") pending.resolve(reply.output);
    else pending.reject(new CodecError(reply.stage, reply.message));
  }

  /** Replaces a worker that was healthy with a fresh, warming one. */
  #restart(reason?: Error): void {
    this.terminate(reason ?? new Error("worker restarted"));
    this.start().catch(() => {}); // warm the replacement now, off any request's path
  }
}

/** Whether Workers can load here: a local worker module needs read access to its file. */
export async function canStartWorkers(): Promise<boolean> {
  if (typeof Worker === "undefined") return false;
  if (WORKER_URL.protocol !== "file:") return true;
  const read = await Deno.permissions.query({ name: "read", path: WORKER_URL }).catch(() =>
    undefined
  );
  return read?.state === "granted";
}

/** `size` workers, addressed by slot number (from the JobScheduler). */
export class WorkerPool {
  readonly #workers: PooledWorker[];

  constructor(size: number) {
    this.#workers = Array.from({ length: size }, () => new PooledWorker());
  }

  /** Starts every worker and waits until all have warm codecs. */
  async warm(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.start()));
  }

  /** Runs a whole export on the worker of `slot`. */
  async run(slot: number, input: Uint8Array, plan: ExportPlan): Promise<Uint8Array<ArrayBuffer>> {
    return (await this.#upload("export", slot, input, plan)).bytes;
  }

  /** Decodes an upload on the worker of `slot` to the upright pixels its PNG is written from. */
  async pixels(slot: number, input: Uint8Array, plan: ExportPlan): Promise<PngInput> {
    return (await this.#upload("pixels", slot, input, plan)).image;
  }

  /**
   * Decodes and quantises an upload on the worker of `slot` for its PNG `low`: a palette and the
   * pixels to remap in bands, or the finished PNG when it cannot be banded.
   */
  async palette(slot: number, input: Uint8Array, plan: ExportPlan): Promise<Quantised> {
    return (await this.#upload("palette", slot, input, plan)).quantised;
  }

  /** Filters and deflates one band of a lossless PNG on the worker of `slot`. */
  band(slot: number, band: BandRequest): Promise<DeflatedBand> {
    return this.#band(slot, { kind: "band", band });
  }

  /** Remaps and deflates one band of a palette PNG on the worker of `slot`. */
  paletteBand(slot: number, band: PaletteBandRequest): Promise<DeflatedBand> {
    return this.#band(slot, { kind: "paletteBand", band });
  }

  /** A job on an upload (its bytes transferred), weighed by its pixels; its output of that kind. */
  async #upload<K extends "export" | "pixels" | "palette">(
    kind: K,
    slot: number,
    input: Uint8Array,
    plan: ExportPlan,
  ): Promise<Extract<WorkerOutput, { kind: K }>> {
    const job = { kind, input: ownBuffer(input), plan } as WorkerJob;
    const output = await this.#workers[slot].run(job, plan.width * plan.height);
    return output as Extract<WorkerOutput, { kind: K }>;
  }

  async #band(slot: number, job: WorkerJob): Promise<DeflatedBand> {
    const output = await this.#workers[slot].run(job, 0);
    return (output as Extract<WorkerOutput, { kind: "band" }>).band;
  }

  /** Terminates every worker. */
  close(): void {
    for (const worker of this.#workers) worker.terminate();
  }
}

/** A buffer holding exactly `bytes`, to transfer: the array's own when it spans all of it. */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes.buffer as ArrayBuffer
    : bytes.slice().buffer;
}
