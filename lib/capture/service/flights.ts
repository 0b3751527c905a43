/**
 * Single flight: one render per job key at a time, shared by every identical request that
 * arrives while it runs, and aborted only when the last request waiting for it has left. What
 * to do with a finished render (cache it or not) is the service's (`keep`, service.ts).
 */
import type { CachedCapture, JobKey } from "./cache.ts";
import type { CaptureJob } from "../types.ts";
import { cancelledError } from "../failures.ts";

/** One render in progress, shared by every identical request that arrives meanwhile. */
export interface Flight {
  key: JobKey;
  /** Started for a forceRefresh request: it began after that request asked for fresh pixels. */
  forced: boolean;
  controller: AbortController;
  waiters: number;
  /** A stale-while-revalidate refresh nobody waits for: a leaving joiner does not abort it. */
  background: boolean;
  /** Whether a 4xx/5xx render may be cached: no waiter asked for failOnHttpError. */
  cacheErrorPages: boolean;
  /** The finished render while its cache write is still running: newer than the store's. */
  done?: CachedCapture;
  promise: Promise<CachedCapture>;
}

export interface FlightsOptions {
  /** Renders a job; the signal aborts it once nobody waits for it. */
  render(job: CaptureJob, signal: AbortSignal): Promise<CachedCapture>;
  /** Handles a finished shared render; its flight stays joinable until this resolves. */
  keep(flight: Flight, capture: CachedCapture): Promise<void>;
}

export interface Flights {
  /** The flight of a key: running, or finished with its cache write still going. */
  get(id: string): Flight | undefined;
  /** How many keys have a flight. */
  size(): number;
  /** Requests waiting on a flight in progress, over every flight. */
  waiting(): number;
  /** Starts the shared render of `key`, which becomes the key's flight. */
  start(key: JobKey, job: CaptureJob, options: { forced: boolean; background?: boolean }): Flight;
  /** A render for one request only (credentials): never cached, never joined by another. */
  solo(job: CaptureJob): Flight;
  /** Waits for a flight on behalf of one request; the last waiter to leave aborts it. */
  join(flight: Flight, signal?: AbortSignal): Promise<CachedCapture>;
}

/** The flights of one service, keyed by JobKey.id. */
export function createFlights(options: FlightsOptions): Flights {
  const { render, keep } = options;
  const flights = new Map<string, Flight>();

  function start(
    key: JobKey,
    job: CaptureJob,
    options: { forced: boolean; background?: boolean },
  ): Flight {
    const controller = new AbortController();
    const promise = render(job, controller.signal);
    promise.catch(() => {}); // every waiter may have left; the rejection is theirs
    const flight: Flight = {
      key,
      forced: options.forced,
      background: options.background ?? false,
      controller,
      waiters: 0,
      cacheErrorPages: true,
      promise,
    };
    flights.set(key.id, flight);
    // Waiters get the image as soon as it is ready, not after the store write (a network
    // store is felt); the flight stays joinable until the write ends, so an identical request
    // that misses the not-yet-written entry still gets this render.
    void promise.then((capture) => (flight.done = capture, keep(flight, capture)))
      .catch(() => {})
      .finally(() => {
        if (flights.get(key.id) === flight) flights.delete(key.id);
      });
    return flight;
  }

  function solo(job: CaptureJob): Flight {
    const controller = new AbortController();
    const promise = render(job, controller.signal);
    promise.catch(() => {});
    const key = { store: [], id: "", url: job.url };
    const flight = { key, forced: true, background: false, controller, waiters: 0, promise };
    return { ...flight, cacheErrorPages: false };
  }

  function join(flight: Flight, signal?: AbortSignal): Promise<CachedCapture> {
    flight.waiters++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        flight.waiters--;
        if (flight.waiters === 0 && !flight.background) {
          if (flights.get(flight.key.id) === flight) flights.delete(flight.key.id);
          flight.controller.abort(cancelledError());
        }
        reject(cancelledError());
      };
      // A listener added to a signal that has already fired would never run.
      if (signal?.aborted) return onAbort();
      const done = () => signal?.removeEventListener("abort", onAbort);
      signal?.addEventListener("abort", onAbort, { once: true });
      flight.promise.then(
        (capture) => (done(), resolve(capture)),
        (error) => (done(), reject(error)),
      );
    });
  }

  const waiting = () => [...flights.values()].reduce((sum, flight) => sum + flight.waiters, 0);
  return { get: (id) => flights.get(id), size: () => flights.size, waiting, start, solo, join };
}
