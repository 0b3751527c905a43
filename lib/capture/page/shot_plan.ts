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
  type MediaType,
} from "../request/options.ts";
import {
  type OutputFormat,
  outputKind,
  type PdfOptions,
  type RecordingOptions,
  resolvedRecording,
  type TextFormat,
  type VideoFormat,
} from "../request/output.ts";

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

/** What the capture hands back: the target as an image, or the whole page in another form. */
export type PlannedOutput =
  | { kind: "image" }
  /** Printed with the request's CSS media type (screen unless it asks for print). */
  | { kind: "pdf"; pdf: PdfOptions; media: MediaType }
  | { kind: "video"; format: VideoFormat; recording: Required<RecordingOptions> }
  | { kind: "text"; format: TextFormat };

export interface ShotPlan {
  output: PlannedOutput;
  /** The area an image shows (the viewport for the other outputs, which take the whole page). */
  target: ShotTarget;
  /** Bring the page to rest before shooting (the settle); false: the first frame as it is. */
  settled: boolean;
  /** Device pixel ratio of the image. */
  scale: number;
  /** No white behind the page: the PNG keeps the page's own alpha. */
  transparent: boolean;
  /** The image format asked for (png for the other outputs), and a jpeg's or webp's quality. */
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
export function encoderOf(plan: ShotPlan, shotIn: OutputFormat): "chromium" | "service" {
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
  const output = plannedOutput(options);
  return {
    output,
    target,
    settled: options.settle !== false,
    scale: options.scale ?? 1,
    transparent: options.transparent === true,
    format: output.kind === "image" ? (options.format as ImageFormat | undefined) ?? "png" : "png",
    maxSide: options.format === "webp" ? MAX_WEBP_SIDE : MAX_CAPTURE_SIDE,
    ...(options.quality !== undefined ? { quality: options.quality } : {}),
  };
}

function plannedOutput(options: CaptureOptions): PlannedOutput {
  const { format } = options;
  switch (outputKind(format)) {
    case "image":
      return { kind: "image" };
    case "pdf":
      return { kind: "pdf", pdf: options.pdf ?? {}, media: options.media ?? "screen" };
    case "video":
      return {
        kind: "video",
        format: format as VideoFormat,
        recording: resolvedRecording(format as VideoFormat, options.recording),
      };
    case "text":
      return { kind: "text", format: format as TextFormat };
  }
}
