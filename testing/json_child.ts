/** Child processes of tests and benches that announce themselves with one JSON line on stdout. */
const ROOT = new URL("../", import.meta.url).pathname;

/**
 * A child process that prints one JSON line when it listens (testing/tls_media_hosts.ts...), run
 * with V8's defaults unless `v8Flags` are given.
 */
export async function spawnJsonChild<T>(
  script: string,
  options: { args?: string[]; v8Flags?: string } = {},
) {
  const flags = options.v8Flags ? [`--v8-flags=${options.v8Flags}`] : [];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...flags, script, ...options.args ?? []],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited before it listened`);
    text += value;
  }
  reader.releaseLock();
  const info = JSON.parse(text.split("\n")[0]) as T;
  return {
    pid: child.pid,
    info,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}
