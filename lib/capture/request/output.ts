/**
 * What a capture hands back besides an image: a PDF of the page, a scrolling recording (MP4, WebM
 * or GIF), or the page's content as Markdown or HTML. Their formats, media types, options with
 * their defaults and limits, and the canonical form those options take in the cache key.
 */
/** Image formats a capture can be encoded in; png is the default. */
export const IMAGE_FORMATS = ["png", "jpeg", "webp"] as const;
export type ImageFormat = typeof IMAGE_FORMATS[number];
export const PDF_FORMATS = ["pdf"] as const;
export const VIDEO_FORMATS = ["mp4", "webm", "gif"] as const;
export const TEXT_FORMATS = ["markdown", "html"] as const;
export type VideoFormat = typeof VIDEO_FORMATS[number];
export type TextFormat = typeof TEXT_FORMATS[number];

/** Every format a capture can answer in; png is the default. */
export const OUTPUT_FORMATS = [
  ...IMAGE_FORMATS,
  ...PDF_FORMATS,
  ...VIDEO_FORMATS,
  ...TEXT_FORMATS,
] as const;
export type OutputFormat = typeof OUTPUT_FORMATS[number];

/** What kind of thing a format is: it decides how the page is taken and how it is answered. */
export type OutputKind = "image" | "pdf" | "video" | "text";

export function outputKind(format: OutputFormat | undefined): OutputKind {
  if (format === undefined || (IMAGE_FORMATS as readonly string[]).includes(format)) {
    return "image";
  }
  if (format === "pdf") return "pdf";
  if ((VIDEO_FORMATS as readonly string[]).includes(format)) return "video";
  return "text";
}

/** The Content-Type of each format, for raw-bytes answers. */
export const OUTPUT_MEDIA_TYPES: Record<OutputFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
  pdf: "application/pdf",
  mp4: "video/mp4",
  webm: "video/webm",
  gif: "image/gif",
  markdown: "text/markdown",
  html: "text/html",
};

// --- PDF ---

export const PAPER_SIZES = ["A4", "Letter", "Legal", "A3", "Tabloid"] as const;
export type PaperSize = typeof PAPER_SIZES[number];

/** How a PDF is laid out; every field optional. */
export interface PdfOptions {
  paper?: PaperSize;
  landscape?: boolean;
  /** Backgrounds (colours and images) printed; true by default, as the page looks. */
  printBackground?: boolean;
  /** One CSS length for all four sides: a number with px, pt, in, cm or mm (0 needs none). */
  margin?: string;
  /** 0.1 to 2. */
  scale?: number;
  /** Chromium's page ranges, e.g. "1-3, 5"; pages past the end are left out. */
  pageRanges?: string;
  /** The whole page on one PDF page as wide as the viewport and as tall as the document. */
  onePage?: boolean;
}

export const DEFAULT_PDF: Required<Omit<PdfOptions, "pageRanges">> = {
  paper: "A4",
  landscape: false,
  printBackground: true,
  margin: "0",
  scale: 1,
  onePage: false,
};

export const MIN_PDF_SCALE = 0.1;
export const MAX_PDF_SCALE = 2;
/** A margin: a non-negative number and a unit (none for 0). */
export const PDF_MARGIN_PATTERN = /^(0|\d{1,4}(\.\d{1,3})?(px|pt|in|cm|mm))$/;
/** Largest margin, in CSS px (2 in): the page must keep room for the content. */
export const MAX_PDF_MARGIN_PX = 192;
/** Chromium's page ranges: numbers and ranges separated by commas. */
export const PDF_PAGE_RANGES_PATTERN = /^\s*\d+(\s*-\s*\d*)?(\s*,\s*\d+(\s*-\s*\d*)?)*\s*$/;
export const MAX_PDF_PAGE_RANGES_LENGTH = 64;

const CSS_PX_PER_UNIT: Record<string, number> = {
  px: 1,
  pt: 96 / 72,
  in: 96,
  cm: 96 / 2.54,
  mm: 96 / 25.4,
};

/** A margin in CSS px, or null when it is not one of PDF_MARGIN_PATTERN's lengths. */
export function marginPx(margin: string): number | null {
  if (!PDF_MARGIN_PATTERN.test(margin)) return null;
  if (margin === "0") return 0;
  const unit = margin.slice(-2);
  return Number(margin.slice(0, -2)) * CSS_PX_PER_UNIT[unit];
}

// --- Recording ---

export const RECORDING_SCROLLS = ["smooth", "screens"] as const;
export type RecordingScroll = typeof RECORDING_SCROLLS[number];

/** How a recording scrolls the page; every field optional. */
export interface RecordingOptions {
  /** The recording's length, ms (1000..30000). */
  durationMs?: number;
  /** Frames a second (10..60): 30 for a video, 12 for a GIF by default. */
  fps?: number;
  /** smooth: one steady scroll from top to bottom; screens: a screen at a time, held. */
  scroll?: RecordingScroll;
}

export const MIN_RECORDING_MS = 1_000;
export const MAX_RECORDING_MS = 30_000;
export const DEFAULT_RECORDING_MS = 6_000;
export const MIN_RECORDING_FPS = 10;
export const MAX_RECORDING_FPS = 60;
export const DEFAULT_VIDEO_FPS = 30;
export const DEFAULT_GIF_FPS = 12;
/** Most frames in one recording (30 s at 30 fps): each is a shot of the page. */
export const MAX_RECORDING_FRAMES = 900;
/**
 * Most pixels over all frames (frame width x height x scale^2 x frames): 30 s of 1280x720 at 30
 * fps, or 15 s of 1920x1080.
 */
export const MAX_RECORDING_PIXELS = 1280 * 720 * 900;

/** The recording's fields with their defaults for `format`. */
export function resolvedRecording(
  format: VideoFormat,
  recording: RecordingOptions = {},
): Required<RecordingOptions> {
  return {
    durationMs: recording.durationMs ?? DEFAULT_RECORDING_MS,
    fps: recording.fps ?? (format === "gif" ? DEFAULT_GIF_FPS : DEFAULT_VIDEO_FPS),
    scroll: recording.scroll ?? "smooth",
  };
}

// Measured here (bench/recording.ts, 1280x720 on 2 cores): a frame at a new position costs about
// 110 ms at load 2 to 3 and 230 ms at load 10 to 12 (the machine shared with other browsers); a
// held frame costs nothing. The budget assumes every frame moves at the loaded pace with some
// headroom, plus the encoder's finish (the GIF's second pass, about 15 ms a frame), in proportion
// to the frame's pixels past 1280x720; a frame at a pixel ratio other than 1 is a screenshot,
// not a screencast frame, at up to three times the cost. The budget turns a hang into a 408; it
// never cuts a recording that is only slow.
const BUDGET_MS_PER_FRAME = 270;
const BUDGET_FRAME_PIXELS = 1280 * 720;
const SCREENSHOT_FRAME_FACTOR = 3;
const BUDGET_SLACK_MS = 5_000;

/** The frame a recording is shot at: the viewport in CSS px and its device pixel ratio. */
export interface RecordingFrame {
  width: number;
  height: number;
  scale: number;
}

/**
 * How much longer than a screenshot the service must allow a capture for `recording` of
 * `frame` (added to the capture's deadline, and the recording's own bound).
 */
export function recordingBudgetMs(
  recording: Required<RecordingOptions>,
  frame: RecordingFrame,
): number {
  const pixels = frame.width * frame.height * frame.scale * frame.scale;
  const perFrame = BUDGET_MS_PER_FRAME * Math.max(1, pixels / BUDGET_FRAME_PIXELS) *
    (frame.scale === 1 ? 1 : SCREENSHOT_FRAME_FACTOR);
  return Math.round(recordingFrames(recording) * perFrame) + BUDGET_SLACK_MS;
}

/** The number of frames a recording holds. */
export function recordingFrames(recording: Required<RecordingOptions>): number {
  return Math.max(2, Math.round(recording.durationMs * recording.fps / 1000));
}

/** What a capture that is not an image says about itself, answered beside its bytes. */
export interface OutputFacts {
  /** A PDF's page count. */
  pages?: number;
  /** A recording's frame size in pixels. */
  width?: number;
  height?: number;
  /** A recording's length, its frames and their rate. */
  durationMs?: number;
  frames?: number;
  fps?: number;
}

/**
 * How much longer than a screenshot a capture with `options` at `frame` may take: a recording's
 * frames.
 */
export function outputBudgetMs(
  options: { format?: OutputFormat; recording?: RecordingOptions } = {},
  frame: RecordingFrame,
) {
  if (outputKind(options.format) !== "video") return 0;
  const recording = resolvedRecording(options.format as VideoFormat, options.recording);
  return recordingBudgetMs(recording, frame);
}
