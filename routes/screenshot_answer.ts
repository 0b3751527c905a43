/**
 * How POST /api/screenshot answers a capture: JSON with the image base64-encoded (the default), or
 * the image's own bytes when Accept asks for an image type, with headers that carry what the
 * JSON carries. Errors are JSON envelopes either way.
 */
import type { Context } from "hono";
import { Buffer } from "node:buffer";
import {
  type ColorScheme,
  type DeviceType,
  FORMAT_MEDIA_TYPES,
  IMAGE_FORMATS,
  type ImageFormat,
  NO_PAGE_METADATA,
  type PageMetadata,
} from "../lib/capture/mod.ts";
import { readImageInfo } from "../lib/codecs/image_info.ts";
import { invalidRequest } from "../lib/errors.ts";
import type { AppEnv } from "../lib/http/app_env.ts";
import { accepts, namedOffers, negotiate } from "../lib/http/negotiate.ts";

const JSON_TYPE = "application/json";
const IMAGE_TYPES = IMAGE_FORMATS.map((format) => FORMAT_MEDIA_TYPES[format]);
const FORMAT_OF = Object.fromEntries(IMAGE_FORMATS.map((f) => [FORMAT_MEDIA_TYPES[f], f]));

/**
 * The format to render and whether to answer with raw bytes. An image type named in Accept picks
 * the format when the body sends none; `image/*` takes the format sent (png by default). 400 when
 * the client accepts only image types other than the `format` it sent.
 */
export function chooseAnswer(
  accept: string | undefined,
  sent: ImageFormat | undefined,
): { format: ImageFormat; raw: boolean } {
  const named = namedOffers(accept, IMAGE_TYPES);
  const wanted = sent ? FORMAT_MEDIA_TYPES[sent] : named[0] ?? FORMAT_MEDIA_TYPES.png;
  const format = FORMAT_OF[wanted];
  if (accepts(accept, wanted) && negotiate(accept, [JSON_TYPE, wanted]) === wanted) {
    return { format, raw: true };
  }
  if (named.length > 0 && !accepts(accept, JSON_TYPE)) {
    throw invalidRequest(`Accept asks for ${named.join(", ")} but format is ${sent}.`, {
      hint: `Send Accept: ${wanted} (or image/*) for the ${sent} bytes, or leave format out to ` +
        "get the type Accept names; Accept: application/json answers JSON.",
    });
  }
  return { format, raw: false };
}

/** What a finished capture hands the answer. */
export interface AnsweredCapture {
  image: Uint8Array;
  format: ImageFormat;
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
}

/**
 * Sets the 200 answer's headers (alike for both forms: cache, target status, size, age, cut,
 * stale) and returns the image's size.
 */
export function setCaptureHeaders(
  c: Context<AppEnv>,
  capture: AnsweredCapture,
): { width: number; height: number } {
  const size = readImageInfo(capture.format, capture.image) ?? { width: 0, height: 0 };
  c.header("X-Cache", capture.cached ? "hit" : "miss");
  if (capture.targetStatus !== null) c.header("X-Target-Status", String(capture.targetStatus));
  c.header("X-Image-Width", String(size.width));
  c.header("X-Image-Height", String(size.height));
  c.header("Age", String(capture.age));
  if (capture.truncated) c.header("X-Truncated", "true");
  if (capture.stale) c.header("X-Stale", "true");
  c.header("Cache-Control", "no-store");
  // The same URL answers JSON or an image by Accept: a shared cache must keep them apart.
  c.header("Vary", "Accept");
  return { width: size.width, height: size.height };
}

/** The JSON answer's body. */
export function captureJson(capture: AnsweredCapture, size: { width: number; height: number }) {
  const { image } = capture;
  return {
    screenshot: Buffer.from(image.buffer, image.byteOffset, image.byteLength).toString("base64"),
    format: capture.format,
    url: capture.url,
    page: capture.page ?? NO_PAGE_METADATA,
    cached: capture.cached,
    age: capture.age,
    ...(capture.stale ? { stale: true as const } : {}),
    strategy: capture.strategy,
    deviceType: capture.deviceType,
    colorScheme: capture.colorScheme,
    width: size.width,
    height: size.height,
    ...(capture.targetStatus !== null ? { httpStatus: capture.targetStatus } : {}),
    ...(capture.truncated ? { truncated: true as const } : {}),
  };
}
