/**
 * Removing a browser's temporary profile once nothing writes to it any more. Chromium's helper
 * processes (zygotes, GPU, utility, renderers) outlive a browser that crashed or was killed by a
 * moment, longer on a loaded machine, and one still writing re-creates the directory it writes
 * in: a profile removed while they lived came back as an empty directory. Every helper names the
 * profile on its command line (`--user-data-dir=`), so the removal waits for those to exit.
 */
import type { Logger } from "../../log.ts";

// How long the helpers of a dead browser get to notice and exit before the profile goes anyway.
const HELPERS_EXIT_MS = 10_000;
const HELPERS_POLL_MS = 100;
// Waits between attempts at removing a profile that is still being written: about 6 s in all.
const REMOVAL_WAITS_MS = [100, 200, 400, 800, 1_600, 3_200];

/** Removes `dir` after the processes using it as their profile have exited (bounded). */
export async function removeProfile(dir: string, log: Logger): Promise<void> {
  const deadline = performance.now() + HELPERS_EXIT_MS;
  let using = await processesUsing(dir);
  while (using.length > 0 && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, HELPERS_POLL_MS));
    using = await processesUsing(dir);
  }
  if (using.length > 0) {
    log.warn("browser helpers still running; removing their profile anyway", {
      dir,
      pids: using,
    });
  }
  for (let attempt = 0;; attempt++) {
    try {
      await Deno.remove(dir, { recursive: true });
      return;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      const waitMs = REMOVAL_WAITS_MS[attempt];
      if (waitMs === undefined) {
        log.warn("could not remove browser profile", { dir, error });
        return;
      }
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}

/** Pids of live processes whose command line names `dir` as their user data dir. */
export async function processesUsing(dir: string): Promise<number[]> {
  const flag = `--user-data-dir=${dir}\0`;
  const pids: number[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir("/proc"));
  } catch {
    return []; // no /proc to read (not Linux, or denied): nothing to wait for
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      // A zombie's command line is empty: it writes nothing any more.
      const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      if (cmdline.includes(flag)) pids.push(Number(entry.name));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
