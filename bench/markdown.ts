/**
 * How much of a page's main text the Markdown keeps (lib/capture/page/read_content.ts), and how
 * much of its navigation it leaves out, beside a plain `document.body.innerText`; printed as
 * Markdown (bench/README.md). The corpus is real documentation shipped with Debian's packages
 * under /usr/share/doc (Node.js API pages, Valgrind's DocBook manual, libffi's Texinfo manual,
 * a Sphinx page), served with their styles and scripts on loopback, and three made-up pages
 * (bench/support/readable_fixtures.ts, testing/readable_pages.ts); a page missing here is skipped.
 *
 * For each page a selector marks the main text (its main or article element, or the region the
 * generator gives its content) and what inside it is navigation; the navigation words are those
 * the body's rendered text has beyond the main text's, word by word with repeats. Figures: recall,
 * the share of the main text's words (with repeats) found in the output; navigation left out, the
 * share of the navigation words the output does not have beyond the main text (100 % is best);
 * time per reading, median of the rounds on a loaded page. Words are runs of letters and digits,
 * case folded; the Markdown's link targets, tag names and code fences are not counted.
 *
 *   deno run -A bench/markdown.ts [--rounds=5]
 */
import type { Page } from "puppeteer-core";
import { readContent } from "../lib/capture/page/read_content.ts";
import { launchChromium } from "../testing/editor_browser.ts";
import { ARTICLE_PAGE } from "../testing/readable_pages.ts";
import { loadAverage, median } from "./support/measure.ts";
import { DEBIAN_DOCS as DOCS, debianDoc, DOC_TYPES } from "./support/debian_docs.ts";
import { BLOG_FRONT_PAGE, DIV_DOCS_PAGE } from "./support/readable_fixtures.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 5);
const READ_MS = 30_000;

interface Sample {
  name: string;
  path: string;
  /** The main text's element. */
  main: string;
  /** Navigation inside it, not counted as main text. */
  notMain?: string;
}

const NODE = (page: string) => ({
  name: `Node.js ${page}`,
  path: `/doc/nodejs/api/${page}.html`,
  main: "#apicontent",
});

const CORPUS: Sample[] = [
  ...["path", "events", "url", "buffer", "stream", "child_process", "fs"].map(NODE),
  { name: "Valgrind core", path: "/doc/valgrind/html/manual-core.html", main: ".chapter" },
  { name: "Valgrind Memcheck", path: "/doc/valgrind/html/mc-manual.html", main: ".chapter" },
  {
    name: "libffi closure API",
    path: "/doc/libffi8/html/The-Closure-API.html",
    main: ".section",
    notMain: ".header",
  },
  {
    name: "libffi types",
    path: "/doc/libffi8/html/Types.html",
    main: ".section",
    notMain: ".header",
  },
  { name: "Python policy (Sphinx)", path: "/doc/python3/python-policy.html", main: "[role=main]" },
  { name: "fixture article", path: "/fixture/article", main: "article" },
  { name: "fixture div docs", path: "/fixture/docs", main: "[data-main]", notMain: ".breadcrumbs" },
  { name: "fixture blog front", path: "/fixture/blog", main: "[data-main]" },
];

const FIXTURES: Record<string, string> = {
  "/fixture/article": ARTICLE_PAGE,
  "/fixture/docs": DIV_DOCS_PAGE,
  "/fixture/blog": BLOG_FRONT_PAGE,
};

async function serve(request: Request): Promise<Response> {
  const path = decodeURIComponent(new URL(request.url).pathname);
  if (FIXTURES[path]) {
    return new Response(FIXTURES[path], { headers: { "content-type": DOC_TYPES.html } });
  }
  return await debianDoc(path);
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

// The tags of what the Markdown keeps as HTML (a table with lists in its cells).
const HTML_TAG =
  /<\/?(table|thead|tbody|tfoot|tr|th|td|ul|ol|li|h[1-6]|hr|blockquote|p|a|img|code|pre|em|strong|br)\b[^<>]*>/gi;

/** The Markdown's words, without its link targets and its tags' names. */
function markdownWords(markdown: string): string[] {
  const text = markdown.replace(/^(`{3,}|~{3,}).*$/gm, "") // a fence and its language
    .replace(/\]\([^)]*\)/g, "]")
    .replace(HTML_TAG, " ");
  return words(text);
}

function counts(list: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const word of list) map.set(word, (map.get(word) ?? 0) + 1);
  return map;
}

interface Regions {
  main: Map<string, number>;
  /** The words the body has beyond the main text's, with their repeats. */
  navigation: Map<string, number>;
}

const total = (map: Map<string, number>) => [...map.values()].reduce((sum, n) => sum + n, 0);

/** What `whole` has beyond `part`, word by word. */
function beyond(whole: Map<string, number>, part: Map<string, number>): Map<string, number> {
  const extra = new Map<string, number>();
  for (const [word, count] of whole) {
    const more = count - (part.get(word) ?? 0);
    if (more > 0) extra.set(word, more);
  }
  return extra;
}

function score(output: string[], regions: Regions) {
  const found = counts(output);
  let kept = 0;
  for (const [word, count] of regions.main) kept += Math.min(count, found.get(word) ?? 0);
  // The output's words beyond the main text are the navigation it kept.
  const extra = beyond(found, regions.main);
  let navigationKept = 0;
  for (const [word, count] of regions.navigation) {
    navigationKept += Math.min(count, extra.get(word) ?? 0);
  }
  const navigation = total(regions.navigation);
  return {
    recall: kept / Math.max(1, total(regions.main)),
    leftOut: navigation ? 1 - navigationKept / navigation : null,
  };
}

/** The body's and the main element's rendered text; the page is changed, so read it last. */
async function regionsOf(page: Page, sample: Sample): Promise<Regions | null> {
  const texts = await page.evaluate(`(() => {
    const body = document.body.innerText;
    const main = document.querySelector(${JSON.stringify(sample.main)});
    if (!main) return null;
    for (const element of main.querySelectorAll(${JSON.stringify(sample.notMain ?? ":not(*)")})) {
      element.remove();
    }
    return { body, main: main.innerText };
  })()`) as { body: string; main: string } | null;
  if (!texts) return null;
  const main = counts(words(texts.main));
  return { main, navigation: beyond(counts(words(texts.body)), main) };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

const percent = (value: number | null) => value === null ? "–" : `${(value * 100).toFixed(1)} %`;

const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, serve);
const origin = `http://127.0.0.1:${http.addr.port}`;
const browser = await launchChromium();
const rows: string[] = [];
const totals = {
  md: [] as number[],
  mdNav: [] as number[],
  text: [] as number[],
  textNav: [] as number[],
};
try {
  for (const sample of CORPUS) {
    if (sample.path.startsWith("/doc/")) {
      const exists = await Deno.stat(`${DOCS}/${sample.path.slice(5)}`).catch(() => null);
      if (!exists) {
        console.error(`skipped ${sample.name}: ${sample.path} is not installed`);
        continue;
      }
    }
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}${sample.path}`, { waitUntil: "load" });
      // What a closed details element holds is text a reader opens, and the Markdown keeps it:
      // open, innerText has it too, and the main text counts it.
      await page.evaluate(`for (const details of document.querySelectorAll("details")) {
        details.open = true;
      }`);
      const markdownMs: number[] = [];
      const innerTextMs: number[] = [];
      let markdown = "";
      let innerText = "";
      for (let round = 0; round < ROUNDS; round++) {
        const read = await timed(() => readContent(page, "markdown", READ_MS));
        markdown = read.value.text;
        markdownMs.push(read.ms);
        const plain = await timed(() =>
          page.evaluate("document.body.innerText") as Promise<string>
        );
        innerText = plain.value;
        innerTextMs.push(plain.ms);
      }
      const regions = await regionsOf(page, sample);
      if (!regions) {
        console.error(`skipped ${sample.name}: no ${sample.main}`);
        continue;
      }
      const md = score(markdownWords(markdown), regions);
      const text = score(words(innerText), regions);
      totals.md.push(md.recall);
      totals.text.push(text.recall);
      if (md.leftOut !== null && text.leftOut !== null) {
        totals.mdNav.push(md.leftOut);
        totals.textNav.push(text.leftOut);
      }
      rows.push(
        `| ${sample.name} | ${total(regions.main)} | ${total(regions.navigation)} | ` +
          `${percent(md.recall)} | ${percent(md.leftOut)} | ${median(markdownMs).toFixed(1)} | ` +
          `${percent(text.recall)} | ${percent(text.leftOut)} | ${
            median(innerTextMs).toFixed(1)
          } |`,
      );
    } finally {
      await page.close();
    }
  }
} finally {
  await browser.close();
  await http.shutdown();
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
console.log(
  `Markdown against body.innerText, ${rows.length} pages, median of ${ROUNDS} readings; ` +
    `${new Date().toISOString()}, load ${loadAverage()}\n`,
);
console.log(
  "| page | main words | nav-only words | md recall | md nav left out | md ms | " +
    "innerText recall | innerText nav left out | innerText ms |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const row of rows) console.log(row);
console.log(
  `| mean | | | ${percent(mean(totals.md))} | ${percent(mean(totals.mdNav))} | | ` +
    `${percent(mean(totals.text))} | ${percent(mean(totals.textNav))} | |`,
);
