/**
 * The capture in the format its request named, where the shot plan has the service encode it
 * (page/shot_plan.ts, encoderOf: an image joined as PNG from several shots for a jpeg or webp):
 * re-encoded here by the export codecs at the request's quality.
 */
import type { ImageExporter } from "../codecs/exporter.ts";
import { typedFailureError } from "./failures.ts";
import type { CaptureJob, Capturer, CaptureResult } from "./types.ts";
import { DEFAULT_QUALITY } from "./request/options.ts";
import { encoderOf, planShot } from "./page/shot_plan.ts";
import { withEncodeTime } from "./report.ts";

/** Re-encodes a PNG as jpeg or webp at a quality 1..100. */
export type Transcoder = (
  png: Uint8Array,
  to: { format: "jpeg" | "webp"; quality: number },
) => Promise<Uint8Array>;

/**
 * The export codecs (sharp or wasm) as a transcoder: 4:4:4 JPEG from quality 90, as `high`, and
 * `fast`, as Chromium encodes the captures it shoots in one piece (a sequential JPEG: MozJPEG's
 * trellis and progressive scans cost a full page 14x the time for a third fewer bytes).
 */
export function exporterTranscoder(exporter: ImageExporter): Transcoder {
  return async (png, to) => {
    const preset = to.quality >= 90 ? "high" : "medium";
    // A copy: the exporter may hand its input to a Worker (detaching it), and the PNG may be
    // shared (a cached record, a test double's image).
    const { bytes } = await exporter.export(png.slice(), { ...to, preset, fast: true });
    return bytes;
  };
}

/** `capturer` whose images are always in the job's format (its shot plan's). */
export function inJobFormat(capturer: Capturer, transcode: Transcoder): Capturer {
  return {
    ...capturer,
    async capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult> {
      const result = await capturer.capture(job, signal);
      const plan = planShot(job.options);
      const { format, quality = DEFAULT_QUALITY } = plan;
      if (plan.output.kind !== "image" || format === "png") return result;
      if (encoderOf(plan, result.format) === "chromium") return result;
      try {
        const started = performance.now();
        const image = await transcode(result.image, { format, quality });
        const encodeMs = performance.now() - started;
        const report = result.report && withEncodeTime(result.report, encodeMs);
        return { ...result, image, format, ...(report ? { report } : {}) };
      } catch (error) {
        // The codecs' typed failure (a busy encoder: 503 with Retry-After) as the API's answer.
        throw typedFailureError(error) ?? error;
      }
    },
  };
}
