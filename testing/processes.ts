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
