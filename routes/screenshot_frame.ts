/**
 * `frame` on POST /api/screenshot: the capture (from the cache or a render, always the plain
 * PNG) framed after the cache by the same renderer as the editor and POST /api/frame, then
 * encoded in the format and quality the request named.
 */
import {
  type CaptureOptions,
  DEFAULT_QUALITY,
  type ImageFormat,
  type OutputFormat,
  outputKind,
  type PageMetadata,
} from "../lib/capture/mod.ts";
import { exportAnswer } from "../lib/codecs/failures.ts";
import { unsupportedValue } from "../lib/errors.ts";
import type { FramedImage, FramePlacement, Framer } from "../lib/frame/framer.ts";
import { traced } from "../lib/telemetry/trace.ts";
import type { FrameRequest } from "./frame_schemas.ts";

/** 400 for a frame on a PDF, a recording or text: only images are framed. */
export function refuseFrameOf(format: OutputFormat): void {
  if (outputKind(format) === "image") return;
  throw unsupportedValue(`frame applies to images (png, jpeg, webp), not format ${format}.`, {
    hint: "Leave frame out for this format, or ask for an image format.",
  });
}

/** The capture's options without its output encoding: the frame is encoded instead. */
export function unencoded(options: CaptureOptions): CaptureOptions {
  const { format: _format, quality: _quality, ...rest } = options;
  return rest;
}

/** The framed capture in the asked format (quality as a capture's: 90 and over is `high`). */
export async function frameCapture(
  framer: Framer,
  capture: { image: Uint8Array; page?: PageMetadata },
  frame: FrameRequest,
  target: { url: string; pixelRatio: number; format: ImageFormat; quality?: number },
): Promise<FramedImage> {
  const quality = target.quality ?? DEFAULT_QUALITY;
  const output = target.format === "png" ? { format: "png" as const, preset: "medium" as const } : {
    format: target.format,
    preset: quality >= 90 ? "high" as const : "medium" as const,
    quality,
  };
  const source = {
    bytes: capture.image,
    pixelRatio: target.pixelRatio,
    url: target.url,
    page: capture.page ?? null,
  };
  return await traced(
    "capture.frame",
    { format: output.format, path: framer.encoder },
    () =>
      framer.frame(source, frame, output).catch((error) => {
        throw exportAnswer(error);
      }),
  );
}

/** X-Frame-Image: where the capture went, x,y,width,height in the frame's pixels. */
export function placementHeader(placement: FramePlacement): string {
  const { x, y, width, height } = placement.image;
  return `${x},${y},${width},${height}`;
}
