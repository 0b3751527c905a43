/**
 * Upload flood (part of `deno task load`): 256 clients each POST a 5 MB PNG to /api/export at
 * once, against the real main.ts. Reports the statuses and the service's peak RSS meanwhile,
 * and a slow uploader (1 byte/s) to show it cannot hold an export slot.
 *
 *   deno run -A bench/load/uploads.ts     (starts its own service)
 */
import { encodeFixture } from "../../testing/codecs.ts";
import { loadAverage } from "../support/measure.ts";
import { startService, watchPeaks } from "./service.ts";

const CLIENTS = 256;
const TARGET_BYTES = 5 * 1024 * 1024;

/** A PNG of noise (incompressible) of about 5 MB, as a multipart body. */
async function fiveMegabyteUpload() {
  // RGBA noise compresses to about its raw size: 1280 x 1400 x 3 (RGB) = 5.4 MB.
  const width = 1280;
  const height = 1400;
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 65536) {
    crypto.getRandomValues(data.subarray(i, Math.min(data.length, i + 65536)));
  }
  const png = await encodeFixture({ data, width, height }, "png");
  const form = new FormData();
  form.append("image", new File([png as Uint8Array<ArrayBuffer>], "noise.png"));
  form.append("format", "webp");
  form.append("qualityPreset", "low");
  const request = new Request("http://localhost/", { method: "POST", body: form });
  return {
    bytes: new Uint8Array(await request.arrayBuffer()),
    contentType: request.headers.get("content-type")!,
  };
}

/** POSTs the body once; the status, or the error's name when the connection broke. */
async function upload(
  origin: string,
  body: Uint8Array<ArrayBuffer>,
  contentType: string,
): Promise<string> {
  try {
    const res = await fetch(`${origin}/api/export`, {
      method: "POST",
      headers: { "content-type": contentType },
      body,
    });
    await res.body?.cancel();
    return String(res.status);
  } catch (error) {
    return `reset (${error instanceof Error ? error.name : "error"})`;
  }
}

/** A client sending its multipart upload one byte a second; how the service answered it. */
async function slowUpload(origin: string, contentType: string, body: Uint8Array<ArrayBuffer>) {
  const started = performance.now();
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= body.length) return controller.close();
      await new Promise((r) => setTimeout(r, 1000));
      controller.enqueue(body.subarray(sent, ++sent));
    },
  });
  let status: string;
  try {
    const res = await fetch(`${origin}/api/export`, {
      method: "POST",
      headers: { "content-type": contentType, "content-length": String(body.length) },
      body: stream,
    });
    const json = await res.json().catch(() => ({}));
    status = `${res.status} ${json.code ?? ""}`.trim();
  } catch (error) {
    status = `reset (${error instanceof Error ? error.name : "error"})`;
  }
  return { status, seconds: (performance.now() - started) / 1000, bytesSent: sent };
}

/** Runs the flood against `origin` (pid for RSS); returns Markdown lines. */
export async function uploadFlood(origin: string, pid: number): Promise<string[]> {
  const { bytes, contentType } = await fiveMegabyteUpload();
  const before = loadAverage();
  const watch = watchPeaks(pid, 50);
  const started = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: CLIENTS }, () => upload(origin, bytes, contentType)),
  );
  const seconds = (performance.now() - started) / 1000;
  const { start, peak } = watch.stop();
  const counts = new Map<string, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  const slow = Deno.args.includes("--no-slow")
    ? { status: "not run", seconds: 0, bytesSent: 0 }
    : await slowUpload(origin, contentType, bytes);
  return [
    `${CLIENTS} concurrent uploads of ${(bytes.length / 2 ** 20).toFixed(1)} MB ` +
    `(${TARGET_BYTES / 2 ** 20} MB target) to POST /api/export, load average ${before}:`,
    "",
    "| measure | value | target |",
    "|---|---|---|",
    `| statuses | ${[...counts].map(([s, n]) => `${s}: ${n}`).join(", ")} | |`,
    `| service RSS before / peak | ${start.denoMb.toFixed(0)} / ${
      peak.denoMb.toFixed(0)
    } MB | peak < 300 MB ${peak.denoMb < 300 ? "(met)" : "(MISSED)"} |`,
    `| wall time | ${seconds.toFixed(1)} s | |`,
    `| slow uploader (1 byte/s) | ${slow.status} after ${slow.seconds.toFixed(0)} s, ` +
    `${slow.bytesSent} bytes sent | freed by the body-read deadline |`,
  ];
}

async function main() {
  const logDir = await Deno.makeTempDir({ prefix: "shotline-uploads-" });
  const service = await startService({ KV_PATH: ":memory:" }, logDir);
  try {
    console.log((await uploadFlood(service.origin, service.pid)).join("\n"));
  } finally {
    await service.stop();
    await Deno.remove(logDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
