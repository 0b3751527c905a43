/**
 * What a model can read of a long page, by OCR (the `tesseract` CLI) as a stand-in for the model:
 * long real pages captured full page at a 1280 px wide desktop viewport by the real main.ts, as
 * PNG, then read
 * (a) at full resolution: the reference;
 * (b) as the single image the MCP tool answered with before tiles: fitImage to the client limits
 *     (8000 px on the long side, 5 MB of base64), read at the size it is sent;
 * (c) as the tiled answer: the tiles of planTiles/cutImage within the model's image limits
 *     (1568 px, 1.15 MP), each read on its own, their words joined;
 * and the overview alone (fitSize to the same limits), for information.
 * Recall is the share of (a)'s words, with their repeats, that a variant's words match; a word is
 * a run of letters and digits, case folded, of two characters or more.
 *
 * Tesseract reads a tall image badly and slowly, so anything taller than STRIP px is read in
 * horizontal strips that overlap by OVERLAP px: a word counts in the strip whose own band (the
 * strip without its overlaps) holds the middle of its box, so a line cut by one strip's edge is
 * read whole in the next, and no word is counted twice. Tiles are read as they are, without
 * overlap: a line cut by a tile's edge is what a model gets too.
 *
 *   deno run -A bench/agent_vision.ts [--only=Node.js os,resume] [--threshold=global|local]
 *
 * It needs tesseract (apt-get install -y tesseract-ocr tesseract-ocr-eng), which the service does not.
 */
import { Buffer } from "node:buffer";
import { base64Length } from "../lib/bytes.ts";
import {
  createImageExporter,
  createWasmExporter,
  type ImageExporter,
} from "../lib/codecs/exporter.ts";
import { fitImage } from "../lib/codecs/fit.ts";
import { readImageInfo, sniffKind } from "../lib/codecs/image_info.ts";
import {
  cutImage,
  fitSize,
  MODEL_IMAGE_LIMITS,
  type Piece,
  planTiles,
  type Rect,
} from "../lib/codecs/tiles.ts";
import { CLIENT_IMAGE_LIMITS } from "../lib/mcp/result_items.ts";
import { startService } from "./load/service.ts";
import { CORPUS_DIR, installCorpus } from "./real_sites/install.ts";
import { serveCorpus } from "./real_sites/serve.ts";
import { loadAverage, median } from "./support/measure.ts";
import { DEBIAN_DOCS as DOCS, debianDoc } from "./support/debian_docs.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ONLY = option("only")?.split(",");
// Tesseract's binarisation: "global" (Otsu over the whole image, its default) or "local"
// (Sauvola), which keeps light text on a coloured band that a global threshold loses in a crop
// where the band dominates.
const THRESHOLD = option("threshold") ?? "global";
const VIEWPORT = { width: 1280, height: 800 };
const STRIP = 2000;
const OVERLAP = 200;
// Tesseract runs one thread per process here; one process per core reads the most per second.
const OCR_PROCESSES = navigator.hardwareConcurrency ?? 2;
// Image tokens as Anthropic's documentation counts them.
const PIXELS_PER_TOKEN = 750;

interface Sample {
  name: string;
  /** Path on the Debian documentation server (`/doc/...`) or on the real-site corpus server. */
  path: string;
}

const PAGES: Sample[] = [
  { name: "Node.js path", path: "/doc/nodejs/api/path.html" },
  { name: "Python policy (Sphinx)", path: "/doc/python3/python-policy.html" },
  { name: "Node.js os", path: "/doc/nodejs/api/os.html" },
  { name: "Valgrind Memcheck", path: "/doc/valgrind/html/mc-manual.html" },
  { name: "resume", path: "/npm/startbootstrap-resume/dist/index.html" },
  { name: "creative", path: "/npm/startbootstrap-creative/dist/index.html" },
];

/** Debian's documentation under /usr/share/doc, as bench/markdown.ts serves it. */
function serveDocs() {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => debianDoc(decodeURIComponent(new URL(request.url).pathname)),
  );
}

/** Words of a text as the recall counts them. */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length >= 2);
}

function counts(list: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const word of list) map.set(word, (map.get(word) ?? 0) + 1);
  return map;
}

/** The share of `reference`'s words, repeats included, that `found` has. */
function recall(found: string[], reference: Map<string, number>): number {
  const have = counts(found);
  let matched = 0, total = 0;
  for (const [word, count] of reference) {
    matched += Math.min(count, have.get(word) ?? 0);
    total += count;
  }
  return matched / Math.max(1, total);
}

/** At most `limit` OCR processes at a time. */
const queue: Array<() => void> = [];
let running = 0;
async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= OCR_PROCESSES) await new Promise<void>((resolve) => queue.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    queue.shift()?.();
  }
}

interface OcrWord {
  text: string;
  /** Middle of the word's box, from the image's top. */
  middle: number;
}

/** Tesseract's words of one image (PNG or JPEG bytes), with where they sit. */
function ocr(image: Uint8Array): Promise<OcrWord[]> {
  return slot(async () => {
    const child = new Deno.Command("tesseract", {
      args: [
        "stdin",
        "stdout",
        "-l",
        "eng",
        ...(THRESHOLD === "local" ? ["-c", "thresholding_method=2"] : []),
        "tsv",
      ],
      env: { OMP_THREAD_LIMIT: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(image);
    await writer.close();
    const { code, stdout, stderr } = await child.output();
    if (code !== 0) throw new Error(`tesseract: ${new TextDecoder().decode(stderr)}`);
    const rows = new TextDecoder().decode(stdout).split("\n").slice(1);
    return rows.map((row) => row.split("\t")).filter((cells) => cells[0] === "5" && cells[11])
      .map((cells) => ({ text: cells[11], middle: Number(cells[7]) + Number(cells[9]) / 2 }));
  });
}

/** The words of a whole image at its own resolution, in overlapping strips when it is tall. */
async function readWhole(image: Uint8Array, exporter: ImageExporter): Promise<string[]> {
  const { width, height } = sizeOf(image);
  if (height <= STRIP + OVERLAP) return (await ocr(image)).flatMap((word) => words(word.text));
  const bands = Math.ceil(height / STRIP);
  const strips = Array.from({ length: bands }, (_, k) => {
    const own = { top: k * STRIP, bottom: Math.min(height, (k + 1) * STRIP) };
    const top = Math.max(0, own.top - OVERLAP);
    const rect = { x: 0, y: top, width, height: Math.min(height, own.bottom + OVERLAP) - top };
    return { own, rect };
  });
  const pieces = strips.map(({ rect }) => ({ rect, width: rect.width, height: rect.height }));
  const cut = await cutImage(image, pieces, { format: "png", exporter });
  const read = await Promise.all(cut.map(async (piece, k) => {
    const { own, rect } = strips[k];
    const kept = (await ocr(piece.bytes)).filter((word) => {
      const middle = rect.y + word.middle;
      return middle >= own.top && middle < own.bottom;
    });
    return kept.flatMap((word) => words(word.text));
  }));
  return read.flat();
}

function sizeOf(image: Uint8Array): { width: number; height: number } {
  const info = readImageInfo(sniffKind(image) ?? "png", image);
  if (!info) throw new Error("unreadable image");
  return { width: info.width, height: info.height };
}

const tokensOf = (size: { width: number; height: number }) =>
  Math.round((size.width * size.height) / PIXELS_PER_TOKEN);

interface Row {
  name: string;
  size: string;
  tiles: number;
  referenceWords: number;
  single: number;
  tiled: number;
  overview: number;
  answerBytes: number;
  answerTokens: number;
  singleBytes: number;
  singleTokens: number;
  cut: string;
  height: number;
}

/** One cut of the answer's pieces, its time and the longest stretch this thread was held. */
async function timedCut(png: Uint8Array, pieces: Piece[], exporter: ImageExporter) {
  let longest = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  try {
    const cut = await cutImage(png, pieces, { format: "png", exporter });
    return { cut, ms: Math.round(performance.now() - started), block: Math.round(longest) };
  } finally {
    clearInterval(timer);
  }
}

async function measure(png: Uint8Array, exporter: ImageExporter) {
  const size = sizeOf(png);
  const area: Rect = { x: 0, y: 0, ...size };
  const reference = counts(await readWhole(png, exporter));
  // Before tiles: one image fitted to the client's limits (as lib/mcp/call.ts answered).
  const fitted = await fitImage(png, { limits: CLIENT_IMAGE_LIMITS, exporter });
  const single = fitted?.bytes ?? png;
  const singleSize = fitted ?? size;
  // The tiled answer: the overview, then every tile at full resolution.
  const tiles = planTiles(area, MODEL_IMAGE_LIMITS);
  const overview = { rect: area, ...fitSize(size, MODEL_IMAGE_LIMITS) };
  const pieces = [
    overview,
    ...tiles.map((rect) => ({ rect, width: rect.width, height: rect.height })),
  ];
  const timed = await timedCut(png, pieces, exporter);
  const [cutOverview, ...cutTiles] = timed.cut;
  const wasm = await timedCut(png, pieces, wasmExporter);
  const [singleWords, tileWords, overviewWords] = await Promise.all([
    readWhole(single, exporter),
    Promise.all(
      cutTiles.map(async (tile) => (await ocr(tile.bytes)).flatMap((w) => words(w.text))),
    ),
    ocr(cutOverview.bytes).then((found) => found.flatMap((w) => words(w.text))),
  ]);
  const answer = [cutOverview, ...cutTiles];
  return {
    size,
    tiles: tiles.length,
    referenceWords: [...reference.values()].reduce((sum, n) => sum + n, 0),
    single: recall(singleWords, reference),
    tiled: recall(tileWords.flat(), reference),
    overview: recall(overviewWords, reference),
    answerBytes: answer.reduce((sum, piece) => sum + base64Length(piece.bytes.length), 0),
    answerTokens: answer.reduce((sum, piece) => sum + tokensOf(piece), 0),
    singleBytes: base64Length(single.length),
    // What the model is billed for: its own front end scales the image into its limits first.
    singleTokens: tokensOf(fitSize(singleSize, MODEL_IMAGE_LIMITS)),
    cut: `${exporter.encoder} ${timed.ms} ms (${timed.block}), wasm ${wasm.ms} ms (${wasm.block})`,
  };
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`;

// The reader stands in for the model: without it there is nothing to measure.
if (
  !await new Deno.Command("tesseract", { args: ["--version"], stdout: "null", stderr: "null" })
    .output().then((o) => o.success, () => false)
) {
  console.error("tesseract is not installed: apt-get install -y tesseract-ocr tesseract-ocr-eng");
  Deno.exit(1);
}

const pages = PAGES.filter((page) => !ONLY || ONLY.includes(page.name));
const startLoad = loadAverage();
const started = performance.now();
await installCorpus();
const docs = serveDocs();
const corpus = serveCorpus();
const logDir = await Deno.makeTempDir({ prefix: "shotline-vision-" });
const service = await startService({
  KV_PATH: ":memory:",
  TRUST_PROXY_HOPS: "1",
  ALLOW_PRIVATE_NETWORK: "true",
}, logDir);
const exporter = await createImageExporter();
// The cut is timed on the wasm path too when sharp serves the exports.
const wasmExporter = createWasmExporter();
const rows: Row[] = [];
try {
  for (const page of pages) {
    const origin = page.path.startsWith("/doc/")
      ? `http://127.0.0.1:${docs.addr.port}`
      : corpus.origin;
    if (page.path.startsWith("/doc/")) {
      const exists = await Deno.stat(`${DOCS}/${page.path.slice(5)}`).catch(() => null);
      if (!exists) {
        console.error(`skipped ${page.name}: ${page.path} is not installed`);
        continue;
      }
    }
    const res = await fetch(`${service.origin}/api/screenshot`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "198.18.9.1" },
      body: JSON.stringify({
        url: origin + page.path,
        fullPage: true,
        format: "png",
        ...VIEWPORT,
        forceRefresh: true,
      }),
    });
    const json = await res.json();
    if (res.status !== 200) {
      throw new Error(`${page.name}: HTTP ${res.status} ${JSON.stringify(json)}`);
    }
    const png = new Uint8Array(Buffer.from(json.screenshot, "base64"));
    const figures = await measure(png, exporter);
    const row = {
      ...figures,
      name: page.name + (json.truncated ? " (cut short)" : ""),
      size: `${figures.size.width}x${figures.size.height}`,
      height: figures.size.height,
    };
    rows.push(row);
    console.error(
      `${row.name}: ${row.size}, tiles ${percent(row.tiled)}, single ${percent(row.single)}`,
    );
  }
} finally {
  await exporter.close();
  await wasmExporter.close();
  await service.stop();
  await corpus.close();
  await docs.shutdown();
}

const seconds = Math.round((performance.now() - started) / 1000);
console.log(
  `Load average: ${startLoad} at the start, ${loadAverage()} at the end; ${seconds} s in all. ` +
    `Pages from ${DOCS} and ${CORPUS_DIR}.\n`,
);
console.log(
  "| page | capture | words read at full size | tiles | recall: tiles | " +
    "recall: one 8000 px image | recall: overview alone | tiled answer: base64, tokens | " +
    "one image: base64, tokens | cut: ms (longest block) |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
for (const row of rows) {
  const cells = [
    row.name,
    row.size,
    row.referenceWords,
    row.tiles,
    percent(row.tiled),
    percent(row.single),
    percent(row.overview),
    `${kb(row.answerBytes)}, ${row.answerTokens}`,
    `${kb(row.singleBytes)}, ${row.singleTokens}`,
    row.cut,
  ];
  console.log(`| ${cells.join(" | ")} |`);
}
const column = (pick: (row: Row) => number) => rows.map(pick);
const summary = (values: number[]) =>
  `median ${percent(median(values))}, lowest ${percent(Math.min(...values))}`;
console.log(`\nRecall, tiles: ${summary(column((r) => r.tiled))}`);
console.log(`Recall, one 8000 px image: ${summary(column((r) => r.single))}`);
console.log(`Recall, overview alone: ${summary(column((r) => r.overview))}`);
const perPage = column((r) => (r.answerTokens / r.height) * 20_000);
console.log(
  `Tiled answer per 20,000 px of a 1280 px wide page: median ${Math.round(median(perPage))} ` +
    `tokens, at most ${Math.round(Math.max(...perPage))}`,
);
