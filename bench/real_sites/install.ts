/**
 * Installs the real-site corpus from the npm registry into `bench/.corpus/node_modules`
 * (git-ignored): the templates, the scroll-effect libraries the composed pages load, and the npm
 * packages that stand in for the CDN files the templates reference (see `cdn.ts`). Every version
 * is exact; an install whose package.json already matches is skipped.
 *
 *   deno run -A bench/real_sites/install.ts
 */

export const CORPUS_DIR = new URL("../.corpus/", import.meta.url).pathname;
export const MODULES_DIR = `${CORPUS_DIR}node_modules/`;

export const PACKAGES: Record<string, string> = {
  // Templates, served from their own published files.
  "startbootstrap-creative": "7.0.7",
  "startbootstrap-resume": "7.0.6",
  "startbootstrap-sb-admin-2": "4.1.4",
  "gentelella": "4.2.0",
  // Libraries of the composed landing pages in `pages/`.
  "jquery": "3.7.1",
  "aos": "2.3.4",
  "wowjs": "1.1.3",
  "scrollreveal": "4.0.9",
  "gsap": "3.15.0",
  "waypoints": "4.0.1",
  "jquery.counterup": "2.1.0",
  "rellax": "1.12.1",
  "swiper": "14.4.0",
  "vanilla-lazyload": "19.1.3",
  "lozad": "1.16.0",
  // What the templates' CDN links point at, at the versions in the links.
  "bootstrap": "5.2.3",
  "bootstrap-icons": "1.5.0",
  "simplelightbox": "2.1.3", // the nearest published to the link's 2.1.0,
  "@fortawesome/fontawesome-free": "6.3.0",
  "@fontsource/merriweather": "5.3.0",
  "@fontsource/merriweather-sans": "5.3.0",
  "@fontsource/muli": "4.1.0",
  "@fontsource/saira-extra-condensed": "5.3.0",
  "@fontsource/nunito": "5.3.0",
  "@fontsource/inter": "5.3.0",
  "@fontsource/open-sans": "5.3.0",
  "@fontsource/source-sans-pro": "5.3.0",
};

/** Writes the pinned package.json and runs `npm install` unless the same set is installed. */
export async function installCorpus(): Promise<void> {
  const manifest = JSON.stringify(
    { name: "shotline-real-sites", private: true, dependencies: PACKAGES },
    null,
    2,
  ) + "\n";
  const marker = `${MODULES_DIR}.shotline-installed.json`;
  const installed = await Deno.readTextFile(marker).catch(() => "");
  if (installed === manifest) return;
  await Deno.mkdir(CORPUS_DIR, { recursive: true });
  await Deno.writeTextFile(`${CORPUS_DIR}package.json`, manifest);
  // --ignore-scripts: nothing here needs a build step, and no install script runs on the machine.
  const { code } = await new Deno.Command("npm", {
    args: ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock"],
    cwd: CORPUS_DIR,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`npm install of the real-site corpus failed (exit ${code})`);
  await Deno.writeTextFile(marker, manifest);
}

if (import.meta.main) await installCorpus();
