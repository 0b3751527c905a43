/**
 * A published npm package unpacked in a temporary folder, for the vendoring scripts. Needs `npm`
 * and `tar` on the PATH and the npm registry.
 */

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stderr: "inherit" }).output();
  if (!output.success) throw new Error(`${command} ${args.join(" ")} failed`);
  return new TextDecoder().decode(output.stdout).trim();
}

/** Runs `use` on the unpacked files of `spec` (`name@version`); the folder is removed after. */
export async function withNpmPackage<T>(
  spec: string,
  use: (packageDir: string) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "shotline_vendor_" });
  try {
    const tarball = (await run("npm", ["pack", "--silent", spec], dir)).split("\n").at(-1)!;
    await run("tar", ["xzf", tarball], dir);
    return await use(`${dir}/package`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
