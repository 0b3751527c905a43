import assert from "node:assert/strict";
import { processesUsing, removeProfile } from "../../../lib/capture/local/profile.ts";
import { createMemoryLogger } from "../../../lib/log.ts";
import { eventually } from "../../../testing/wait.ts";
import { CAN_LIST_PROCESSES } from "../../../testing/processes.ts";

Deno.test({
  name: "a profile is removed only after the helpers naming it have exited",
  ignore: !CAN_LIST_PROCESSES,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "shotline-profile-test-" });
  // bash -c's positional arguments stay on its command line: "--user-data-dir=<dir>" is one.
  const helper = new Deno.Command("bash", {
    args: [
      "-c",
      // The trailing `true`: bash would exec its last command in place, and that command's own
      // command line no longer names the profile, so the writer could outlive the wait.
      'sleep 0.5; mkdir -p "${1#--user-data-dir=}/Default"; true',
      "helper",
      `--user-data-dir=${dir}`,
    ],
  }).spawn();
  try {
    // Until the exec, the child's command line is still ours.
    await eventually(async () => (await processesUsing(dir)).includes(helper.pid), "helper seen");
    await removeProfile(dir, createMemoryLogger());
    await helper.status;
    // Removed before the helper wrote, the directory would be back now.
    await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
  } finally {
    await helper.status;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
