/**
 * Re-vendors the front-end libraries of the settle corpus (tests/fixtures/settle/vendor/) from
 * npm, unmodified, at the versions pinned in its manifest.json: `deno run -A
 * scripts/vendor_settle.ts`. Needs `npm` and `tar` on the PATH and the npm registry.
 */
const VENDOR = new URL("../tests/fixtures/settle/vendor/", import.meta.url);

interface Entry {
  version: string;
  /** Path inside the package -> file name in the vendor folder. */
  files: Record<string, string>;
}

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stderr: "inherit" }).output();
  if (!output.success) throw new Error(`${command} ${args.join(" ")} failed`);
  return new TextDecoder().decode(output.stdout).trim();
}

async function vendor(name: string, entry: Entry): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "shotline_vendor_" });
  try {
    const tarball = (await run("npm", ["pack", "--silent", `${name}@${entry.version}`], dir))
      .split("\n").at(-1)!;
    await run("tar", ["xzf", tarball], dir);
    for (const [from, to] of Object.entries(entry.files)) {
      await Deno.copyFile(`${dir}/package/${from}`, new URL(to, VENDOR));
    }
    console.log(`${name}@${entry.version}: ${Object.values(entry.files).join(", ")}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const manifest: Record<string, Entry> = JSON.parse(
    await Deno.readTextFile(new URL("manifest.json", VENDOR)),
  );
  for (const [name, entry] of Object.entries(manifest)) await vendor(name, entry);
}
