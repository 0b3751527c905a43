/**
 * What one capture shoots and how, decided once from its options and carried down the render:
 * render.ts reads the plan at each step instead of asking the options again.
 */
import {
  type CaptureOptions,
  type CaptureRect,
  type ImageFormat,
  MAX_CAPTURE_SIDE,
  MAX_WEBP_SIDE,
} from "../request/options.ts";

/** The part of the page the image shows. */
export type ShotTarget =
  /** What the viewport shows, as it is. */
  | { kind: "viewport" }
  /**
   * The whole page. Settled: the real scroll positions are visited, the page settled at each and
   * shot band by band (scroll_shot.ts). Unsettled: scrolled through once for lazy content, then
   * drawn beyond the viewport.
   */
  | { kind: "full_page" }
  /** The first element matching `selector`. */
  | { kind: "element"; selector: string }
  /** A rectangle of the document in CSS px, cut to the document. */
  | { kind: "clip"; rect: CaptureRect };

export interface ShotPlan {
  target: ShotTarget;
  /** Bring the page to rest before shooting (the settle); false: the first frame as it is. */
  settled: boolean;
  /** Device pixel ratio of the image. */
  scale: number;
  /** No white behind the page: the PNG keeps the page's own alpha. */
  transparent: boolean;
  /** The image format asked for, and the quality of a jpeg or webp. */
  format: ImageFormat;
  quality?: number;
  /** The longest side the image may have in device px: the cap, lower for webp. */
  maxSide: number;
}

/**
 * The format every part of an image joined from several shots is taken in: the screens of a
 * settled full page, the bands of an area past one screenshot (png_stitch.ts joins PNG only).
 */
export const JOINED_FORMAT = "png";

/**
 * Who encodes the image in the plan's format, given the format it was shot in. Chromium, when one
 * screenshot is the image: it encodes jpeg and webp itself, and nothing is decoded again. The
 * service, when the image was joined from several shots for a jpeg or webp: the export codecs
 * encode the joined PNG whole (capture/transcode.ts). A PNG is never encoded twice.
 */
export function encoderOf(plan: ShotPlan, shotIn: ImageFormat): "chromium" | "service" {
  return shotIn === plan.format ? "chromium" : "service";
}

/** The plan of a job's options: one target, in the order selector > clip > fullPage. */
export function planShot(options: CaptureOptions = {}): ShotPlan {
  const target: ShotTarget = options.selector
    ? { kind: "element", selector: options.selector }
    : options.clip
    ? { kind: "clip", rect: options.clip }
    : options.fullPage
    ? { kind: "full_page" }
    : { kind: "viewport" };
  return {
    target,
    settled: options.settle !== false,
    scale: options.scale ?? 1,
    transparent: options.transparent === true,
    format: options.format ?? "png",
    maxSide: options.format === "webp" ? MAX_WEBP_SIDE : MAX_CAPTURE_SIDE,
    ...(options.quality !== undefined ? { quality: options.quality } : {}),
  };
}
