/** The flags of `deno task start`, so benchmarks run the service exactly as operators do. */
const config = JSON.parse(
  Deno.readTextFileSync(new URL("../deno.json", import.meta.url)),
) as { tasks: { start: string } };

/** Every `--flag` of the start task (permissions and V8 flags). */
export const START_TASK_FLAGS: string[] = config.tasks.start.split(/\s+/)
  .filter((word) => word.startsWith("--"));

/** The value of the start task's `--v8-flags=`, if any. */
export const START_V8_FLAGS: string | undefined = START_TASK_FLAGS
  .find((flag) => flag.startsWith("--v8-flags="))?.slice("--v8-flags=".length);
