/**
 * Writes a lossless PNG with its bands spread over the export's own worker and the idle ones the
 * scheduler lends: a 4K frame uses both cores of a two-core machine when the other is free, and
 * an export that starts waiting gets a lent core back after at most one band (about a
 * megapixel of work). The bytes do not depend on how many workers took part.
 */
import {
  type BandRequest,
  type BandSettings,
  type DeflatedBand,
  joinBands,
  splitBands,
} from "./png_bands.ts";
import type { PngInput } from "./png_filters.ts";
import type { SlotLease } from "./scheduler.ts";

export interface SpreadOptions {
  /** The slot the export runs on: its worker takes bands until none is left. */
  slot: number;
  /** An idle slot to lend, if any (JobScheduler.borrow). */
  borrow: () => SlotLease | undefined;
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
  const deflated: DeflatedBand[] = new Array(bands.length);
  let next = 0;
  const lane = async (slot: number, keep: () => boolean) => {
    while (next < bands.length && keep()) {
      const i = next++;
      try {
        deflated[i] = await options.runBand(slot, bands[i]);
      } catch (error) {
        next = bands.length; // the other lanes stop after their current band
        throw error;
      }
    }
  };
  const lanes = [lane(options.slot, () => true)];
  for (let extra = 1; extra < bands.length; extra++) {
    const lease = options.borrow();
    if (!lease) break;
    lanes.push(lane(lease.slot, () => !lease.wanted()).finally(() => lease.release()));
  }
  // Every lane settles before the export's own slot is given back, failed or not.
  const settled = await Promise.allSettled(lanes);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
  return joinBands(image, deflated);
}
