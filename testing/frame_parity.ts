/**
 * The editor's frame against the API's for the same design: ten designs that cover every field,
 * how to read the editor's framed canvas and the API's PNG as pixels, and how far apart they
 * are. Shared by tests/editor/frame_parity_e2e_test.ts and bench/frame_parity.ts.
 */
import type { Browser, Page } from "puppeteer-core";
import { minimalFields } from "../lib/frame/design.js";
import type { FrameFields } from "../lib/frame/design.js";
import { pngHeader, pngRows } from "../lib/codecs/png_rows.ts";
import { captureDownloads, watchProblems } from "./editor_browser.ts";
import { pickFile, submit, typeInto, waitForFrame } from "./editor_page.ts";

/** One design and the capture it frames (the capture form's choices beside the URL). */
export interface ParityDesign {
  name: string;
  frame: FrameFields;
  capture?: { deviceType?: "mobile"; scale?: 2 };
}

/** Every background kind, padding, radius, shadow 0 and high, each bar, device, several sizes, each fit. */
export const PARITY_DESIGNS: ParityDesign[] = [
  { name: "defaults (iris)", frame: {} },
  {
    name: "one colour, no padding, square, no shadow",
    frame: { background: "#1f2937", padding: 0, radius: 0, shadow: 0 },
  },
  {
    name: "gradient 45°, light bar, shadow 100",
    frame: {
      background: { from: "#ff0000", to: "#0000ff", angle: 45 },
      padding: 120,
      radius: 48,
      shadow: 100,
      browserBar: "light",
    },
  },
  {
    name: "transparent, dark bar",
    frame: { background: "transparent", shadow: 60, browserBar: "dark" },
  },
  { name: "ocean, browser device, auto bar", frame: { background: "ocean", device: "browser" } },
  {
    name: "sunset, laptop, og contain",
    frame: { background: "sunset", device: "laptop", size: "og", fit: "contain" },
  },
  {
    name: "forest, phone, story cover (mobile)",
    frame: { background: "forest", device: "phone", size: "story", fit: "cover" },
    capture: { deviceType: "mobile" },
  },
  {
    name: "midnight, tablet, instagram-portrait top",
    frame: { background: "midnight", device: "tablet", size: "instagram-portrait", fit: "top" },
  },
  {
    name: "paper, auto bar, x cover, padding 32",
    frame: { background: "paper", browserBar: "auto", size: "x", fit: "cover", padding: 32 },
  },
  {
    name: "iris, linkedin top, no shadow (2x)",
    frame: { size: "linkedin", fit: "top", shadow: 0, radius: 200 },
    capture: { scale: 2 },
  },
];

/** Straight RGBA pixels. */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
}

/** An 8-bit RGB or RGBA PNG as RGBA pixels. */
export async function decodePng(png: Uint8Array): Promise<Pixels> {
  const { width, height, channels } = pngHeader(png);
  const data = new Uint8Array(width * height * 4);
  for await (const { y, row } of pngRows(png)) {
    for (let x = 0; x < width; x++) {
      const to = (y * width + x) * 4;
      data.set(row.subarray(x * channels, x * channels + 3), to);
      data[to + 3] = channels === 4 ? row[x * channels + 3] : 255;
    }
  }
  return { width, height, data };
}

/** How far two images are apart: mean and largest absolute difference over every channel. */
export interface Difference {
  sameSize: boolean;
  meanAbs: number;
  max: number;
}

/**
 * The difference of `a` and `b`, channel by channel. A fully transparent pixel's colour is
 * meaningless (an encoder may write any colour there): such pixels count as equal when both are
 * fully transparent.
 */
export function difference(a: Pixels, b: Pixels): Difference {
  if (a.width !== b.width || a.height !== b.height) {
    return { sameSize: false, meanAbs: Infinity, max: Infinity };
  }
  let sum = 0;
  let max = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (a.data[i + 3] === 0 && b.data[i + 3] === 0) continue;
    for (let c = 0; c < 4; c++) {
      const d = Math.abs(a.data[i + c] - b.data[i + c]);
      sum += d;
      if (d > max) max = d;
    }
  }
  return { sameSize: true, meanAbs: sum / a.data.length, max };
}

/**
 * The editor's export as pixels: Export as PNG at `high` (lossless, transparency kept) through
 * POST /api/export, the downloaded file decoded. This is the file a person takes away.
 */
export async function exportedPixels(page: Page, dir: string): Promise<Pixels> {
  const downloads = await captureDownloads(page.browser(), dir, page.browserContext());
  try {
    await page.select("#export-format", "png");
    await page.select("#export-preset", "high");
    const file = downloads.next();
    await page.click("#export-submit");
    return await decodePng((await file).bytes);
  } finally {
    await downloads.detach();
  }
}

/** Waits until the canvas shows `frame` (the editor marks what it drew on the canvas). */
export async function waitForDesign(page: Page, frame: FrameFields) {
  const expected = JSON.stringify(sortedKeys(minimalFields(frame)));
  await page.waitForFunction(
    `(() => {
      const shown = document.getElementById("canvas").dataset.design;
      if (!shown) return false;
      const fields = JSON.parse(shown);
      const sorted = Object.fromEntries(Object.keys(fields).sort().map((k) => [k, fields[k]]));
      return JSON.stringify(sorted) === ${JSON.stringify(expected)};
    })()`,
    { timeout: 60_000 },
  );
}

function sortedKeys(fields: FrameFields) {
  const record = fields as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
}

/**
 * A new editor tab opened on a link that carries `frame` (`/#frame=...`), in a browser context
 * of its own so no remembered setting of an earlier design carries over; close it with
 * `page.browserContext().close()`.
 */
export async function openWithDesign(browser: Browser, origin: string, frame: FrameFields) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const watch = watchProblems(page);
  const link = `${origin}/#frame=${encodeURIComponent(JSON.stringify(minimalFields(frame)))}`;
  const loaded = await page.goto(link, { waitUntil: "load" });
  if (loaded?.status() !== 200) throw new Error(`the editor answered ${loaded?.status()}`);
  return { page, watch };
}

/** The request "Copy as API request" shows: its first line and its body. */
export async function copiedApiRequest(page: Page) {
  await page.click("#copy-api");
  await page.waitForFunction(`!document.getElementById("api-request").hidden`);
  const shown: string = await page.$eval("#api-request", (el) => el.textContent ?? "");
  const blank = shown.indexOf("\n\n");
  return { requestLine: shown.slice(0, shown.indexOf("\n")), body: shown.slice(blank + 2) };
}

/** One design compared: the editor's canvas and the API's answer for the request it copied. */
export interface ParityResult {
  design: string;
  width: number;
  height: number;
  api: { width: number; height: number };
  difference: Difference;
  /** The `frame` the copied request carried. */
  sentFrame: unknown;
  problems: string[];
}

/** Captures `pageUrl` in the editor with `design`, then asks the API with the copied request. */
export async function captureParity(
  browser: Browser,
  options: { origin: string; pageUrl: string; design: ParityDesign; dir: string },
): Promise<ParityResult> {
  const { origin, pageUrl, design, dir } = options;
  const { page, watch } = await openWithDesign(browser, origin, design.frame);
  try {
    if (design.capture?.deviceType) await page.click(`#deviceType-${design.capture.deviceType}`);
    if (design.capture?.scale) await page.click(`#scale-${design.capture.scale}`);
    await typeInto(page, "#capture-url", pageUrl);
    await submit(page, "#capture-submit");
    await waitForDesign(page, design.frame);
    await waitForFrame(page);
    const editor = await exportedPixels(page, dir);
    const copied = await copiedApiRequest(page);
    if (copied.requestLine !== `POST ${origin}/api/screenshot`) {
      throw new Error(`copied ${copied.requestLine}`);
    }
    const body = JSON.parse(copied.body);
    const res = await fetch(`${origin}/api/screenshot`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "image/png" },
      body: JSON.stringify(body),
    });
    return await compared(design, editor, res, body.frame, watch.problems);
  } catch (error) {
    throw new Error(`${design.name}: ${await pageState(page)}`, { cause: error });
  } finally {
    await page.browserContext().close();
  }
}

/** The status line and error box, for a failure's message. */
/** The API's answer decoded and set against the editor's canvas. */
async function compared(
  design: ParityDesign,
  editor: Pixels,
  res: Response,
  sentFrame: unknown,
  problems: ParityResult["problems"],
): Promise<ParityResult> {
  if (res.status !== 200) throw new Error(`the API answered ${res.status}: ${await res.text()}`);
  const api = await decodePng(new Uint8Array(await res.arrayBuffer()));
  return {
    design: design.name,
    width: editor.width,
    height: editor.height,
    api: { width: api.width, height: api.height },
    difference: difference(editor, api),
    sentFrame,
    problems,
  };
}

function pageState(page: Page) {
  return page.evaluate(`["status", "error"].map((id) =>
    document.getElementById(id).textContent.trim().replace(/\s+/g, " ")).join(" | ")`);
}

/** The own-image design compared with POST /api/frame (the `frame` JSON the editor copied). */
export const OWN_IMAGE_DESIGN: ParityDesign = {
  name: "own image: gradient, bar, instagram-square cover",
  frame: {
    background: { from: "#0ea5e9", to: "#f97316", angle: 200 },
    padding: 40,
    radius: 24,
    shadow: 80,
    browserBar: "auto",
    size: "instagram-square",
    fit: "cover",
  },
};

/** Picks `png` in the editor with the own-image design, then frames it with POST /api/frame. */
export async function ownImageParity(
  browser: Browser,
  options: { origin: string; png: Uint8Array; dir: string },
): Promise<ParityResult> {
  const design = OWN_IMAGE_DESIGN;
  const { page, watch } = await openWithDesign(browser, options.origin, design.frame);
  try {
    await pickFile(
      page,
      { name: "parity.png", type: "image/png", bytes: options.png },
      options.dir,
    );
    await waitForDesign(page, design.frame);
    await waitForFrame(page);
    const editor = await exportedPixels(page, options.dir);
    const copied = await copiedApiRequest(page);
    if (copied.requestLine !== `POST ${options.origin}/api/frame`) {
      throw new Error(`copied ${copied.requestLine}`);
    }
    const frameLine = copied.body.split("\n").find((line) => line.startsWith("frame="));
    const frame = JSON.parse(frameLine?.slice("frame=".length) ?? "null");
    const form = new FormData();
    form.append("image", new Blob([options.png as Uint8Array<ArrayBuffer>]), "parity.png");
    form.append("frame", JSON.stringify(frame));
    form.append("format", "png");
    const res = await fetch(`${options.origin}/api/frame`, { method: "POST", body: form });
    return await compared(design, editor, res, frame, watch.problems);
  } finally {
    await page.browserContext().close();
  }
}
