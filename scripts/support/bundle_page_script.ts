/**
 * One npm-backed entry module bundled into one minified classic script (an IIFE for the
 * browser), as the page scripts under lib/capture/page/vendor/ are made. Uses the project's
 * deno.json, so the bundle takes the versions pinned there.
 */
const ROOT = new URL("../../", import.meta.url);

/** The bundle of the module at `entry` (a path), as text. */
export async function bundlePageScript(entry: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "shotline_page_script_" });
  try {
    const out = `${dir}/bundle.js`;
    const { success, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--config",
        new URL("deno.json", ROOT).pathname,
        ...["--platform", "browser", "--format", "iife", "--minify"],
        ...["-o", out, entry],
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!success) throw new Error(new TextDecoder().decode(stderr));
    return await Deno.readTextFile(out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
