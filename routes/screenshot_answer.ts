/**
 * How POST /api/screenshot answers a capture: JSON with the image, PDF or recording
 * base64-encoded or the page's text as a string (the default), or the capture's own bytes when
 * Accept asks for its media type, with headers that carry what the JSON carries. Errors are JSON
 * envelopes either way.
 */
import type { Context } from "hono";
import { Buffer } from "node:buffer";
import {
  type CaptureReport,
  type ColorScheme,
  type DeviceType,
  type ImageFormat,
  NO_PAGE_METADATA,
  OUTPUT_FORMATS,
  OUTPUT_MEDIA_TYPES,
  type OutputFacts,
  type OutputFormat,
  outputKind,
  type PageMetadata,
} from "../lib/capture/mod.ts";
import { readImageInfo } from "../lib/codecs/image_info.ts";
import { invalidRequest } from "../lib/errors.ts";
import type { AppEnv } from "../lib/http/app_env.ts";
import { accepts, namedOffers, negotiate } from "../lib/http/negotiate.ts";

const JSON_TYPE = "application/json";
const OUTPUT_TYPES = OUTPUT_FORMATS.map((format) => OUTPUT_MEDIA_TYPES[format]);
const FORMAT_OF = Object.fromEntries(
  OUTPUT_FORMATS.map((format) => [OUTPUT_MEDIA_TYPES[format], format]),
) as Record<string, OutputFormat>;

/**
 * The format to render and whether to answer with raw bytes. A media type named in Accept picks
 * the format when the body sends none (image/jpeg, application/pdf, video/mp4, text/markdown);
 * `image/*` takes the format sent (png by default). 400 when the client accepts only types
 * other than the `format` it sent.
 */
export function chooseAnswer(
  accept: string | undefined,
  sent: OutputFormat | undefined,
): { format: OutputFormat; raw: boolean } {
  const named = namedOffers(accept, OUTPUT_TYPES);
  const wanted = sent ? OUTPUT_MEDIA_TYPES[sent] : named[0] ?? OUTPUT_MEDIA_TYPES.png;
  const format = FORMAT_OF[wanted];
  if (accepts(accept, wanted) && negotiate(accept, [JSON_TYPE, wanted]) === wanted) {
    return { format, raw: true };
  }
  if (named.length > 0 && !accepts(accept, JSON_TYPE)) {
    throw invalidRequest(`Accept asks for ${named.join(", ")} but format is ${sent}.`, {
      hint: `Send Accept: ${wanted} for the ${sent} bytes, or leave format out to get the ` +
        "type Accept names; Accept: application/json answers JSON.",
    });
  }
  return { format, raw: false };
}

/** What a finished capture hands the answer. */
export interface AnsweredCapture {
  image: Uint8Array;
  format: OutputFormat;
  output?: OutputFacts;
  url: string;
  cached: boolean;
  age: number;
  stale?: boolean;
  strategy: string;
  deviceType: DeviceType;
  colorScheme: ColorScheme;
  targetStatus: number | null;
  truncated?: boolean;
  page?: PageMetadata;
  report?: CaptureReport;
}

/** Pixel size of an image or a recording's frames; null for a PDF and text. */
type CaptureSize = { width: number; height: number } | null;

export function sizeOf(capture: AnsweredCapture): CaptureSize {
  switch (outputKind(capture.format)) {
    case "image":
      return readImageInfo(capture.format as ImageFormat, capture.image) ??
        { width: 0, height: 0 };
    case "video":
      return { width: capture.output?.width ?? 0, height: capture.output?.height ?? 0 };
    default:
      return null;
  }
}

/**
 * Sets the 200 answer's headers (alike for both forms: cache, target status, size, pages, age,
 * cut, stale, findings) and returns the capture's pixel size (null for a PDF and text).
 */
export function setCaptureHeaders(c: Context<AppEnv>, capture: AnsweredCapture): CaptureSize {
  const size = sizeOf(capture);
  c.header("X-Cache", capture.cached ? "hit" : "miss");
  if (capture.targetStatus !== null) c.header("X-Target-Status", String(capture.targetStatus));
  if (size) {
    c.header("X-Image-Width", String(size.width));
    c.header("X-Image-Height", String(size.height));
  }
  const { pages, durationMs } = capture.output ?? {};
  if (pages !== undefined) c.header("X-Pdf-Pages", String(pages));
  if (durationMs !== undefined) c.header("X-Duration-Ms", String(durationMs));
  c.header("Age", String(capture.age));
  if (capture.truncated) c.header("X-Truncated", "true");
  if (capture.stale) c.header("X-Stale", "true");
  const findings = capture.report?.findings.map((finding) => finding.kind) ?? [];
  if (findings.length > 0) c.header("X-Capture-Findings", findings.join(","));
  c.header("Cache-Control", "no-store");
  // The same URL answers JSON or an image by Accept: a shared cache must keep them apart.
  c.header("Vary", "Accept");
  return size;
}

/** The Content-Type of the raw answer: text says its charset. */
export function rawMediaType(format: OutputFormat): string {
  const type = OUTPUT_MEDIA_TYPES[format];
  return outputKind(format) === "text" ? `${type}; charset=utf-8` : type;
}

/** The JSON answer's body: the bytes base64-encoded in `screenshot`, or text in `content`. */
export function captureJson(capture: AnsweredCapture, size: CaptureSize) {
  const { image, format } = capture;
  const text = outputKind(format) === "text";
  return {
    ...(text ? { content: new TextDecoder().decode(image) } : {
      screenshot: Buffer.from(image.buffer, image.byteOffset, image.byteLength).toString("base64"),
    }),
    ...captureFacts(capture, size),
  };
}

/** Everything the JSON answer says of a capture but its bytes (a job item's result). */
export function captureFacts(capture: AnsweredCapture, size: CaptureSize) {
  const { format, output = {} } = capture;
  return {
    format,
    url: capture.url,
    page: capture.page ?? NO_PAGE_METADATA,
    cached: capture.cached,
    age: capture.age,
    ...(capture.stale ? { stale: true as const } : {}),
    strategy: capture.strategy,
    deviceType: capture.deviceType,
    colorScheme: capture.colorScheme,
    ...(size ? { width: size.width, height: size.height } : {}),
    ...(output.pages !== undefined ? { pages: output.pages } : {}),
    ...(output.durationMs !== undefined
      ? { durationMs: output.durationMs, frames: output.frames, fps: output.fps }
      : {}),
    ...(capture.targetStatus !== null ? { httpStatus: capture.targetStatus } : {}),
    ...(capture.truncated ? { truncated: true as const } : {}),
    ...(capture.report ? { report: capture.report } : {}),
  };
}
