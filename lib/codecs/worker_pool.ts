/**
 * A small pool of Workers running the wasm codecs, so a large export never blocks the request
 * thread. Slots are assigned by the JobScheduler; each slot has its own Worker.
 */
import { CodecError } from "./errors.ts";
import type { ExportPlan } from "./presets.ts";
import type { WorkerReply, WorkerRequest } from "./worker.ts";

// A worker that has not answered by then is stuck: it is replaced and the export fails.
export const WORKER_JOB_TIMEOUT_MS = 60_000;
// Wasm memory never shrinks: after an image this large the worker is replaced to return it.
export const RECYCLE_AFTER_PIXELS = 16_000_000;
// A worker that cannot load and warm its codecs in this long is considered broken.
const WORKER_START_TIMEOUT_MS = 30_000;

const WORKER_URL = new URL("./worker.ts", import.meta.url);

interface Pending {
  resolve: (output: Uint8Array<ArrayBuffer>) => void;
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

  /** Runs one export in this worker; the input buffer is transferred, not copied. */
  async run(input: Uint8Array, plan: ExportPlan): Promise<Uint8Array<ArrayBuffer>> {
    await this.start();
    const worker = this.#worker!;
    const id = this.#nextId++;
    const buffer = input.byteOffset === 0 && input.byteLength === input.buffer.byteLength
      ? input.buffer as ArrayBuffer
      : input.slice().buffer;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Wasm memory never shrinks, and a codec that failed may have trapped mid-way: either way
    // the worker is replaced after this job rather than reused.
    let replace = plan.width * plan.height > RECYCLE_AFTER_PIXELS;
    try {
      return await new Promise<Uint8Array<ArrayBuffer>>((resolve, reject) => {
        this.#pending.set(id, { resolve, reject });
        timer = setTimeout(() => {
          this.#restart(new Error(`export timed out after ${WORKER_JOB_TIMEOUT_MS} ms`));
        }, WORKER_JOB_TIMEOUT_MS);
        const request: WorkerRequest = { id, input: buffer, plan };
        worker.postMessage(request, [buffer]);
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
    if (reply.type === "done") pending.resolve(new Uint8Array(reply.output));
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

  /** Runs an export on the worker of `slot`. */
  run(slot: number, input: Uint8Array, plan: ExportPlan): Promise<Uint8Array<ArrayBuffer>> {
    return this.#workers[slot].run(input, plan);
  }

  /** Terminates every worker. */
  close(): void {
    for (const worker of this.#workers) worker.terminate();
  }
}
