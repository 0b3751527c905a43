/**
 * Writes a PNG with its bands spread over the export's own worker and the idle ones the
 * scheduler lends: a 4K frame uses both cores of a two-core machine when the other is free, and
 * an export that starts waiting gets a lent core back after at most one band (about a
 * megapixel of work). The bytes do not depend on how many workers took part.
 */
import {
  joinPaletteBands,
  type Palette,
  type PaletteBandRequest,
  splitPaletteBands,
} from "./palette_bands.ts";
import {
  type BandRequest,
  type BandSettings,
  type DeflatedBand,
  joinBands,
  splitBands,
} from "./png_bands.ts";
import type { PngInput } from "./png_filters.ts";
import type { Pixels } from "./pixels.ts";
import type { SlotLease } from "./scheduler.ts";

/** The export's slot and the scheduler's lending: who may run the bands. */
export interface Lanes {
  /** The slot the export runs on: its worker takes bands until none is left. */
  slot: number;
  /** An idle slot to lend, if any (JobScheduler.borrow). */
  borrow: () => SlotLease | undefined;
}

export interface SpreadOptions extends Lanes {
  /** Filters and deflates one band on the worker of `slot`. */
  runBand: (slot: number, band: BandRequest) => Promise<DeflatedBand>;
}

/** The PNG of `image`, its bands deflated on as many workers as are free. */
export async function encodeSpread(
  image: PngInput,
  settings: BandSettings,
  options: SpreadOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const bands = splitBands(image, settings);
  return joinBands(image, await spreadJobs(bands, options, options.runBand));
}

export interface PaletteSpreadOptions extends Lanes {
  /** Remaps and deflates one band on the worker of `slot`. */
  runBand: (slot: number, band: PaletteBandRequest) => Promise<DeflatedBand>;
}

/** The palette PNG of `image`, its bands remapped and deflated on as many workers as are free. */
export async function encodePaletteSpread(
  image: Pixels,
  palette: { palette: Palette; level: number },
  options: PaletteSpreadOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const bands = splitPaletteBands(image, palette.palette, palette.level);
  return joinPaletteBands(
    image,
    palette.palette,
    await spreadJobs(bands, options, options.runBand),
  );
}

/** Runs every job, in order of index, on the export's lane and on lent ones; results in order. */
async function spreadJobs<Job, Result>(
  jobs: Job[],
  lanes: Lanes,
  run: (slot: number, job: Job) => Promise<Result>,
): Promise<Result[]> {
  const results: Result[] = new Array(jobs.length);
  let next = 0;
  const lane = async (slot: number, keep: () => boolean) => {
    while (next < jobs.length && keep()) {
      const i = next++;
      try {
        results[i] = await run(slot, jobs[i]);
      } catch (error) {
        next = jobs.length; // the other lanes stop after their current job
        throw error;
      }
    }
  };
  const running = [lane(lanes.slot, () => true)];
  for (let extra = 1; extra < jobs.length; extra++) {
    const lease = lanes.borrow();
    if (!lease) break;
    running.push(lane(lease.slot, () => !lease.wanted()).finally(() => lease.release()));
  }
  // Every lane settles before the export's own slot is given back, failed or not.
  const settled = await Promise.allSettled(running);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
  return results;
}
