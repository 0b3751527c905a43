/**
 * Checks shared by the fault tests: "nothing hangs" (a bounded wait that fails with a reason),
 * and "no Chromium process or temporary profile is left behind", found with `ps` without
 * touching anybody else's browsers (other engineers and tests run Chromium on this machine).
 *
 * Chromium's crash handler double-forks to PID 1, so a parent chain cannot find it. Instead every
 * browser the service starts is tagged: its environment carries BROWSER_OWNER_VAR=<owner pid>
 * (Chromium and all of its helpers inherit the environment), and its command line names a
 * profile directory that starts with `shotline-chromium-<owner pid>-`.
 */
import assert from "node:assert/strict";
import { BROWSER_WAIT_MS, eventually } from "./wait.ts";
import { PROFILE_PREFIX } from "../lib/capture/local/browser.ts";
import { withTimeout } from "../lib/timeout.ts";
import { BROWSER_OWNER_VAR } from "../lib/capture/local/launch.ts";

/**
 * A variable set in the environment of the service a test starts: it must never reach the
 * browser (the browser gets an allowlisted environment), which the environ tests check.
 */
export const LEAK_MARK_VAR = "SHOTLINE_FAULT_MARK";

/** Settles like `work`, or fails the test with `what` once `ms` have passed (never hangs). */
export function within<T>(work: T | Promise<T>, ms: number, what: string): Promise<T> {
  const error = () => new Error(`${what}: still pending after ${ms} ms`);
  return withTimeout(Promise.resolve(work), ms, error);
}

/**
 * Fails the test when one request takes more than 60 s (a hang); no timing assertion: a wasm
 * decode of a large bad image took over 10 s on two loaded cores.
 */
export function within60s<T>(what: string, work: Promise<T>): Promise<T> {
  return within(work, 60_000, what);
}

export interface ChromiumOwner {
  /** Pid of the process that launched them (their profile directory and environment carry it). */
  ownerPid: number;
  /**
   * Profiles already on disk when the test began (`chromiumProfiles` then): an earlier test of
   * the same process left them, and its own checks answer for them, not this test's.
   */
  earlier?: string[];
}

export interface LiveProcess {
  pid: number;
  command: string;
}

/**
 * Live (not zombie) Chromium processes of `owner`: browser, renderers, GPU, crash handlers.
 * Read with `ps` (the test permissions do not reach /proc), environment included (`e`).
 */
export function chromiumProcesses(owner: ChromiumOwner): LiveProcess[] {
  const profile = `${PROFILE_PREFIX}${owner.ownerPid}-`;
  const tag = `${BROWSER_OWNER_VAR}=${owner.ownerPid}`;
  const ps = new Deno.Command("ps", { args: ["-e", "-ww", "e", "-o", "pid=,stat=,comm=,args="] });
  const found: LiveProcess[] = [];
  for (const line of new TextDecoder().decode(ps.outputSync().stdout).split("\n")) {
    const [, pid, stat, command, rest] = /^\s*(\d+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line) ?? [];
    if (!pid || stat.startsWith("Z") || !/chrom/i.test(command)) continue;
    if (rest.includes(profile) || new RegExp(`(^|\\s)${tag}(\\s|$)`).test(rest)) {
      found.push({ pid: Number(pid), command });
    }
  }
  return found;
}

/** Temporary Chromium profiles of `ownerPid` still on disk, less those in `earlier`. */
export function chromiumProfiles(ownerPid: number, earlier: string[] = []): string[] {
  const dir = Deno.env.get("TMPDIR") ?? "/tmp";
  const prefix = `${PROFILE_PREFIX}${ownerPid}-`;
  return [...Deno.readDirSync(dir)]
    .filter((e) => e.name.startsWith(prefix) && !earlier.includes(e.name))
    .map((e) => e.name);
}

/**
 * Asserts that, once its helpers have exited (soon after the browser; later on a busy machine),
 * no Chromium process and no temporary profile of `owner` remains.
 */
export async function assertNoChromiumLeft(owner: ChromiumOwner): Promise<void> {
  await eventually(
    () =>
      chromiumProcesses(owner).length === 0 &&
      chromiumProfiles(owner.ownerPid, owner.earlier).length === 0,
    "Chromium processes or profiles left behind",
    { timeoutMs: BROWSER_WAIT_MS, intervalMs: 100 },
  ).catch(() => {
    assert.deepEqual(
      {
        processes: chromiumProcesses(owner),
        profiles: chromiumProfiles(owner.ownerPid, owner.earlier),
      },
      { processes: [], profiles: [] },
      "no Chromium process or temporary profile is left behind",
    );
  });
}
