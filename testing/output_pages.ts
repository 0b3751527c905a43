/**
 * Pages for the outputs beyond images (PDF, recording, Markdown, HTML), and readers that check
 * what came back with the tools a user would open it with (poppler, ffprobe).
 */
import { html } from "./capture_fixtures.ts";

/** Colours of the tall page's bands, top to bottom, each 1000 CSS px. */
export const BAND_COLOURS = ["#ff0000", "#00ff00", "#0000ff", "#ffff00"] as const;

/** An article among navigation, a footer and a cookie banner, with a line written by script. */
export const ARTICLE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Field notes on tides</title></head><body>
<nav><a href="/">Home</a> <a href="/about">Navigation about us</a></nav>
<div id="onetrust-banner-sdk">We use cookies to improve consent banner text</div>
<main><article>
<h1>Field notes on tides</h1>
<p>The tide turns twice a day along the estuary, and the mudflats show birds feeding at low
water. Grüße from the café at the harbour.</p>
<h2>Where to watch</h2>
<ul><li>The old pier at dawn</li><li>The salt marsh boardwalk</li></ul>
<p>Read the <a href="/tables/tides">tide tables</a> before you go.</p>
<table><thead><tr><th>Day</th><th>High water</th></tr></thead>
<tbody><tr><td>Monday</td><td>06:12</td></tr><tr><td>Tuesday</td><td>06:58</td></tr></tbody></table>
<pre><code class="language-js">const tide = await fetch("/tides.json");</code></pre>
<p id="late"></p>
</article></main>
<footer>Footer words copyright shoreline society</footer>
<script>document.getElementById("late").textContent = "Written by script after load.";</script>
</body></html>`;

/** A page of BAND_COLOURS bands under a fixed header, for recordings and PDFs of a long page. */
export const BANDS_PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 0 } .band { height: 1000px; font: 40px sans-serif }
header { position: fixed; top: 0; left: 0; right: 0; height: 40px; background: #000 }
</style></head><body><header></header>${
  BAND_COLOURS.map((colour, i) =>
    `<div class="band" style="background:${colour}"><p style="padding-top:60px">Band ${
      i + 1
    }</p></div>`
  ).join("")
}</body></html>`;

/** The routes of both pages, for servePages. */
export function outputRoutes() {
  return {
    "/article": () => html(ARTICLE_PAGE),
    "/bands": () => html(BANDS_PAGE),
  };
}

/** Runs a command to completion; its stdout as text (throws with its stderr on failure). */
export async function runTool(command: string, args: string[], stdin?: Uint8Array) {
  const child = new Deno.Command(command, {
    args,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const { success, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  if (!success) throw new Error(`${command} failed: ${decoder.decode(stderr).slice(0, 500)}`);
  return decoder.decode(stdout);
}

/** A PDF's page count and first page size in points, as pdfinfo reads them. */
export async function pdfFacts(pdf: Uint8Array) {
  const info = await runTool("pdfinfo", ["-"], pdf);
  const pages = Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
  const size = /^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(info);
  return { pages, width: Number(size?.[1]), height: Number(size?.[2]) };
}

/** The text of a PDF, as pdftotext extracts it. */
export async function pdfText(pdf: Uint8Array): Promise<string> {
  return await runTool("pdftotext", ["-enc", "UTF-8", "-", "-"], pdf);
}

/** A recording's video stream as ffprobe reads it. */
export async function videoFacts(video: Uint8Array) {
  const dir = await Deno.makeTempDir({ prefix: "shotline-video-" });
  try {
    const file = `${dir}/video`;
    await Deno.writeFile(file, video);
    const json = JSON.parse(
      await runTool("ffprobe", [
        "-v",
        "error",
        "-count_frames",
        "-select_streams",
        "v:0",
        "-show_entries",
        "stream=codec_name,width,height,pix_fmt,nb_read_frames:format=duration",
        "-of",
        "json",
        file,
      ]),
    );
    const stream = json.streams[0];
    return {
      codec: String(stream.codec_name),
      width: Number(stream.width),
      height: Number(stream.height),
      pixelFormat: String(stream.pix_fmt),
      frames: Number(stream.nb_read_frames),
      durationS: Number(json.format.duration),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
