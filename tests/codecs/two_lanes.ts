/**
 * One export on a scheduler of two regular slots whose bands go wherever the lanes send them:
 * what the spread encoders see in production, with the band work run in the test's process.
 */
import type { DeflatedBand } from "../../lib/codecs/png_bands.ts";
import { JobScheduler } from "../../lib/codecs/scheduler.ts";
import type { Lanes } from "../../lib/codecs/spread.ts";

/** Runs one band's work as if on `slot`'s worker. */
export type OnSlot = (slot: number, work: () => DeflatedBand) => Promise<DeflatedBand>;

/** The PNG `encode` made, the slots that took bands, and the scheduler's load afterwards. */
export async function encodeOnTwoLanes(
  pixelCount: number,
  encode: (lanes: Lanes, onSlot: OnSlot) => Promise<Uint8Array>,
) {
  const scheduler = new JobScheduler({ slots: 2, smallSlots: 1, smallMaxPixels: 100, maxQueue: 4 });
  const slots = new Set<number>();
  const onSlot: OnSlot = async (slot, work) => {
    slots.add(slot);
    await new Promise((resolve) => setTimeout(resolve, 1)); // let the lanes interleave
    return work();
  };
  const png = await scheduler.run(
    pixelCount,
    (slot) => encode({ slot, borrow: () => scheduler.borrow() }, onSlot),
  );
  return { png, slots: [...slots].sort(), load: scheduler.load };
}
