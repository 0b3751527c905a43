/**
 * A settled full page of a photo-heavy page as `format: "jpeg"` (quality 80) against `png`, through
 * the service's own path: the local capturer walks the page and joins its screens as PNG, and the
 * capture layer re-encodes the whole with the export codecs (lib/capture/transcode.ts). Printed as
 * Markdown (bench/README.md): end-to-end time and size of each, then the re-encode alone against
 * sharp encoding the very same pixels at q80 (already decoded), the goal's "within 1.2x".
 *
 *   deno run -A bench/full_page_jpeg.ts [--rounds=5] [--height=6000]
 */
import { createChromiumCapturer } from "../lib/capture/local/capturer.ts";
import { exporterTranscoder, inJobFormat } from "../lib/capture/transcode.ts";
import { createImageExporter } from "../lib/codecs/exporter.ts";
import { loadSharp } from "../lib/codecs/sharp.ts";
import type { CaptureJob } from "../lib/capture/types.ts";
import { createLogger } from "../lib/log.ts";
import { loadAverage, median } from "./support/measure.ts";
import { photoPage } from "./support/photo_page.ts";

const option = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 5);
const HEIGHT = Number(option("height") ?? 6000);

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Response(photoPage(HEIGHT), { headers: { "content-type": "text/html" } }),
);
const log = createLogger("warn");
const loaded = await loadSharp();
if (!("sharp" in loaded)) throw new Error(`sharp: ${loaded.reason}`);
const { sharp } = loaded;
const exporter = await createImageExporter({ log });
const transcode = exporterTranscoder(exporter);
const local = createChromiumCapturer({ timeoutMs: 30_000, allowPrivateNetwork: true, log });
await local.start();
const capturer = inJobFormat(local, transcode);
const job = (format: "png" | "jpeg"): CaptureJob => ({
  url: `http://127.0.0.1:${server.addr.port}/`,
  deviceType: "desktop",
  colorScheme: "light",
  options: { fullPage: true, ...(format === "jpeg" ? { format, quality: 80 } : {}) },
});

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

console.log(`date: ${new Date().toISOString()}; load before: ${loadAverage()}; rounds ${ROUNDS}`);
const rows: Record<string, { ms: number[]; bytes: number }> = {};
const add = (name: string, ms: number, bytes: number) =>
  (rows[name] ??= { ms: [], bytes }).ms.push(ms);
for (let round = 0; round < ROUNDS + 1; round++) {
  const png = await timed(() => capturer.capture(job("png")));
  const jpeg = await timed(() => capturer.capture(job("jpeg")));
  // The re-encode alone, on this round's PNG, and sharp's encode of the same pixels, decoded.
  const again = await timed(() => transcode(png.value.image, { format: "jpeg", quality: 80 }));
  const raw = await sharp(png.value.image).raw().toBuffer({ resolveWithObject: true });
  const plain = await timed(() =>
    sharp(raw.data, { raw: raw.info }).jpeg({ quality: 80 }).toBuffer()
  );
  if (round === 0) continue; // warm-up
  add(
    `service full page, png (${raw.info.width}x${raw.info.height})`,
    png.ms,
    png.value.image.length,
  );
  add("service full page, jpeg q80", jpeg.ms, jpeg.value.image.length);
  add("its re-encode alone (PNG in, JPEG out, export codecs)", again.ms, again.value.length);
  add("sharp JPEG q80, encode only, same pixels", plain.ms, plain.value.length);
}
console.log("\n| way | median ms | bytes |\n| --- | ---: | ---: |");
for (const [name, row] of Object.entries(rows)) {
  console.log(`| ${name} | ${median(row.ms).toFixed(0)} | ${row.bytes} |`);
}
const ms = (prefix: string) =>
  median(Object.entries(rows).find(([name]) => name.startsWith(prefix))![1].ms);
console.log(
  `\njpeg / png end to end: ${
    (ms("service full page, jpeg") / ms("service full page, png")).toFixed(2)
  }x; ` +
    `re-encode / sharp encode only: ${(ms("its re-encode") / ms("sharp JPEG")).toFixed(2)}x; ` +
    `encoder: ${exporter.encoder}`,
);
console.log(`load after: ${loadAverage()}`);
await local.close();
await exporter.close?.();
await server.shutdown();
