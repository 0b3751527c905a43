/**
 * The capture in the format its request named. Chromium encodes jpeg and webp itself when one
 * screenshot is the image; a full page joined from screens (or an area drawn in bands) comes back
 * as PNG, and is re-encoded here by the export codecs at the request's quality.
 */
import type { ImageExporter } from "../codecs/exporter.ts";
import { typedFailureError } from "./failures.ts";
import type { CaptureJob, Capturer, CaptureResult } from "./types.ts";
import { DEFAULT_QUALITY } from "./request/options.ts";

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

/** `capturer` whose images are always in the job's format (png unless options.format says). */
export function inJobFormat(capturer: Capturer, transcode: Transcoder): Capturer {
  return {
    ...capturer,
    async capture(job: CaptureJob, signal?: AbortSignal): Promise<CaptureResult> {
      const result = await capturer.capture(job, signal);
      const wanted = job.options?.format ?? "png";
      if (wanted === "png" || (result.format ?? "png") === wanted) return result;
      const quality = job.options?.quality ?? DEFAULT_QUALITY;
      try {
        const png = await transcode(result.png, { format: wanted, quality });
        return { ...result, png, format: wanted };
      } catch (error) {
        // The codecs' typed failure (a busy encoder: 503 with Retry-After) as the API's answer.
        throw typedFailureError(error) ?? error;
      }
    },
  };
}
