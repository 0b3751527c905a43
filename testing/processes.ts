/**
 * Whether this test process may list other processes (/proc). Deno refuses /proc unless every
 * permission is granted: `deno task test:quick` denies running Chromium, so the tests that watch
 * child processes (ffmpeg reaped, a profile's helpers gone) run in the full suite only.
 */
export const CAN_LIST_PROCESSES = (() => {
  try {
    Deno.readDirSync("/proc");
    return true;
  } catch {
    return false;
  }
})();

/** The pids of this process's ffmpeg children, zombies included (an unreaped one is an orphan). */
export function ourFfmpegs(): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (name === "ffmpeg" && parent === Deno.pid) found.push(Number(entry.name));
    } catch {
      // exited while listed
    }
  }
  return found;
}
