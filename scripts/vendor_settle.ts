/**
 * Re-vendors the front-end libraries of the settle corpus (testing/settle/vendor/) from
 * npm, unmodified, at the versions pinned in its manifest.json: `deno run -A
 * scripts/vendor_settle.ts`. Needs `npm` and `tar` on the PATH and the npm registry.
 */
import { withNpmPackage } from "./npm_package.ts";

const VENDOR = new URL("../testing/settle/vendor/", import.meta.url);

interface Entry {
  version: string;
  /** Path inside the package -> file name in the vendor folder. */
  files: Record<string, string>;
}

async function vendor(name: string, entry: Entry): Promise<void> {
  await withNpmPackage(`${name}@${entry.version}`, async (dir) => {
    for (const [from, to] of Object.entries(entry.files)) {
      await Deno.copyFile(`${dir}/${from}`, new URL(to, VENDOR));
    }
  });
  console.log(`${name}@${entry.version}: ${Object.values(entry.files).join(", ")}`);
}

if (import.meta.main) {
  const manifest: Record<string, Entry> = JSON.parse(
    await Deno.readTextFile(new URL("manifest.json", VENDOR)),
  );
  for (const [name, entry] of Object.entries(manifest)) await vendor(name, entry);
}
