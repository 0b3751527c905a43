/**
 * The request checks of the outputs that are not images: the options a PDF, a recording or the
 * page's text cannot take (refused with the other contradicting pairs, exclusive.ts), and the
 * bounds that need more than the schema (a recording's frames and pixels, a PDF's margin).
 */
import { invalidField } from "./request_failure.ts";
import type { ExclusiveFields, ExclusivePair } from "./exclusive.ts";
import type { CaptureOptions } from "./options.ts";
import {
  marginPx,
  MAX_PDF_MARGIN_PX,
  MAX_RECORDING_FRAMES,
  MAX_RECORDING_PIXELS,
  type OutputKind,
  outputKind,
  recordingFrames,
  resolvedRecording,
  type VideoFormat,
} from "./output.ts";

const KIND_NAMES: Record<Exclude<OutputKind, "image">, string> = {
  pdf: "a PDF",
  video: "a recording",
  text: "the page's text",
};

/** The formats of each kind, as a refusal names them. */
const KIND_FORMATS: Record<Exclude<OutputKind, "image">, string> = {
  pdf: "pdf",
  video: "mp4, webm or gif",
  text: "markdown or html",
};

/** Image-only fields, with what each does that the other outputs have no use for. */
const IMAGE_ONLY: readonly {
  field: keyof CaptureOptions;
  sent(fields: ExclusiveFields): boolean;
  kinds: readonly Exclude<OutputKind, "image">[];
}[] = [
  { field: "fullPage", sent: (f) => f.fullPage === true, kinds: ["pdf", "video", "text"] },
  { field: "selector", sent: (f) => f.selector !== undefined, kinds: ["pdf", "video", "text"] },
  { field: "clip", sent: (f) => f.clip !== undefined, kinds: ["pdf", "video", "text"] },
  { field: "quality", sent: (f) => f.quality !== undefined, kinds: ["pdf", "video", "text"] },
  {
    field: "transparent",
    sent: (f) => f.transparent === true,
    kinds: ["pdf", "video", "text"],
  },
  // A PDF keeps text and vectors at any zoom (pdf.scale sizes it); text has no pixels.
  { field: "scale", sent: (f) => (f.scale ?? 1) !== 1, kinds: ["pdf", "text"] },
];

/** The request fields an output kind has no use for: its image-only fields and the others' options. */
export function fieldsUnusedBy(kind: Exclude<OutputKind, "image">): string[] {
  const imageOnly = IMAGE_ONLY.filter((f) => f.kinds.includes(kind)).map((f) => f.field);
  const others = { pdf: ["recording"], video: ["pdf"], text: ["pdf", "recording"] }[kind];
  return [...imageOnly, ...others];
}

const WHAT_EACH_TAKES: Record<Exclude<OutputKind, "image">, string> = {
  pdf: "A PDF is the whole document, paginated or on one page (pdf.onePage), sized by pdf.scale",
  video: "A recording scrolls the whole page at the viewport's size",
  text: "The page's text is its whole document",
};

/** The pairs an output format refuses: image-only fields, and options of another output. */
export const OUTPUT_PAIRS: readonly ExclusivePair[] = [
  ...IMAGE_ONLY.flatMap(({ field, sent, kinds }) =>
    kinds.map((kind): ExclusivePair => ({
      fields: [field, "format"],
      names: [field, `format "${KIND_FORMATS[kind]}"`],
      sent: (f) => outputKind(f.format) === kind && sent(f),
      hint: `${WHAT_EACH_TAKES[kind]}: ${field} shapes an image only. Leave ${field} out ` +
        `for ${KIND_NAMES[kind]}, or ask for an image format.`,
    }))
  ),
  {
    fields: ["pdf", "format"],
    names: ["pdf", "a format other than pdf"],
    sent: (f) => f.pdf !== undefined && f.format !== "pdf",
    hint: 'pdf lays out a PDF: send it with format "pdf" (or Accept: application/pdf).',
  },
  {
    fields: ["recording", "format"],
    names: ["recording", "a format other than mp4, webm or gif"],
    sent: (f) => f.recording !== undefined && outputKind(f.format) !== "video",
    hint: 'recording shapes a video: send it with format "mp4", "webm" or "gif".',
  },
  {
    fields: ["pdf.onePage", "pdf.pageRanges"],
    names: ["pdf.onePage", "pdf.pageRanges"],
    sent: (f) => f.pdf?.onePage === true && f.pdf.pageRanges !== undefined,
    hint: "onePage puts the whole page on one PDF page: there are no pages to pick. Send one " +
      "of them.",
  },
];

/**
 * 400 for a recording past its frame or pixel budget (at the viewport and scale it is shot at)
 * and a PDF margin past MAX_PDF_MARGIN_PX.
 */
export function checkOutputBounds(
  options: CaptureOptions,
  viewport: { width: number; height: number; scale: number },
): void {
  const margin = options.pdf?.margin;
  if (margin !== undefined && (marginPx(margin) ?? Infinity) > MAX_PDF_MARGIN_PX) {
    throw invalidField(
      `pdf.margin ${margin} is too wide.`,
      `Send a margin of at most ${MAX_PDF_MARGIN_PX} px (2in, 50.8mm) as a number with px, ` +
        "pt, in, cm or mm.",
    );
  }
  if (outputKind(options.format) !== "video") return;
  const recording = resolvedRecording(options.format as VideoFormat, options.recording);
  const frames = recordingFrames(recording);
  if (frames > MAX_RECORDING_FRAMES) {
    throw invalidField(
      `The recording would have ${frames} frames.`,
      `Send at most ${MAX_RECORDING_FRAMES} frames: durationMs x fps / 1000 (e.g. 30000 ms ` +
        "at 30 fps).",
    );
  }
  const { width, height, scale } = viewport;
  const pixels = width * height * scale * scale * frames;
  if (pixels > MAX_RECORDING_PIXELS) {
    throw invalidField(
      `The recording would be ${width * scale}x${height * scale} px x ${frames} frames.`,
      `Keep width x height x scale² x frames at most ${MAX_RECORDING_PIXELS} (30 s of ` +
        "1280x720 at 30 fps): a smaller viewport, fewer fps or a shorter durationMs.",
    );
  }
}
