/**
 * The editor's frame against the API's: the ten designs of tests/editor/frame_parity_e2e_test.ts
 * (every background kind, padding, radius, shadow 0 and high, each browser bar, each device,
 * several sizes and each fit) plus one own image, each captured in the editor (real Chromium
 * against a loopback instance) and asked of POST /api/screenshot (or POST /api/frame) with the
 * request the editor's "Copy as API request" gives. Prints a Markdown table: design, size, mean
 * and largest absolute difference per channel (0 to 255). A last row frames the demo page whose
 * icon is an SVG: Chromium and the service's codec rasterise it differently, so only that row's
 * icon differs.
 *
 * deno run -A bench/frame_parity.ts
 */
import { launchChromium } from "../testing/editor_browser.ts";
import { startEditorInstance } from "../testing/editor_instance.ts";
import {
  captureParity,
  ownImageParity,
  PARITY_DESIGNS,
  type ParityResult,
} from "../testing/frame_parity.ts";

// The default of twenty requests a minute would stop the run midway.
const instance = await startEditorInstance({ RATE_LIMIT_PER_MINUTE: "1000" });
const browser = await launchChromium();
const dir = await Deno.makeTempDir({ prefix: "shotline-parity-bench-" });
const results: ParityResult[] = [];
try {
  for (const design of PARITY_DESIGNS) {
    results.push(
      await captureParity(browser, {
        origin: instance.origin,
        pageUrl: instance.rasterIconPageUrl,
        design,
        dir,
      }),
    );
  }
  results.push(
    await captureParity(browser, {
      origin: instance.origin,
      pageUrl: instance.pageUrl,
      design: { name: "SVG icon page, light bar", frame: { browserBar: "light" } },
      dir,
    }),
  );
  const png = await Deno.readFile(new URL("../testing/screenshot_1080p.png", import.meta.url));
  results.push(await ownImageParity(browser, { origin: instance.origin, png, dir }));
} finally {
  await browser.close();
  await instance.close();
  await Deno.remove(dir, { recursive: true });
}

console.log(
  `Frame parity, editor export (Chromium) vs API, ` +
    `${new Date().toISOString().slice(0, 10)}\n`,
);
console.log("| design | size | mean abs diff | max diff |");
console.log("| --- | --- | ---: | ---: |");
for (const result of results) {
  const { sameSize, meanAbs, max } = result.difference;
  const size = sameSize
    ? `${result.width}x${result.height}`
    : `${result.width}x${result.height} vs ${result.api.width}x${result.api.height}`;
  console.log(`| ${result.design} | ${size} | ${meanAbs.toFixed(4)} | ${max} |`);
}
const problems = results.flatMap((result) => result.problems);
if (problems.length) console.log(`\nBrowser problems:\n${problems.join("\n")}`);
