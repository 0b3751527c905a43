/** The request fields of the outputs beyond an image: format, pdf and recording. */
import { z } from "@hono/zod-openapi";
import {
  DEFAULT_GIF_FPS,
  DEFAULT_PDF,
  DEFAULT_RECORDING_MS,
  DEFAULT_VIDEO_FPS,
  MAX_PDF_MARGIN_PX,
  MAX_PDF_PAGE_RANGES_LENGTH,
  MAX_PDF_SCALE,
  MAX_RECORDING_FPS,
  MAX_RECORDING_FRAMES,
  MAX_RECORDING_MS,
  MAX_RECORDING_PIXELS,
  MIN_PDF_SCALE,
  MIN_RECORDING_FPS,
  MIN_RECORDING_MS,
  OUTPUT_FORMATS,
  PAPER_SIZES,
  PDF_MARGIN_PATTERN,
  PDF_PAGE_RANGES_PATTERN,
  RECORDING_SCROLLS,
} from "../lib/capture/mod.ts";

export const OutputFormatSchema = z.enum(OUTPUT_FORMATS).optional().openapi({
  default: "png",
  description: "What the capture answers with. An image: png (lossless, the default), jpeg or " +
    "webp, encoded by Chromium itself. A document: pdf (text stays text, links stay links; see " +
    "`pdf`). A recording of the page scrolled from top to bottom: mp4 (H.264), webm (VP9) or " +
    "gif (see `recording`; needs ffmpeg on the server, else 503 naming it). The page's text: " +
    "markdown (its readable content as GitHub-flavoured Markdown, navigation and banners left " +
    "out) or html (the rendered DOM, scripts removed), answered as `content`. Left out, an " +
    "Accept naming one of their media types picks it (image/jpeg, application/pdf, video/mp4, " +
    "text/markdown...). A jpeg cannot be transparent (400: use png or webp), and quality is " +
    "refused with png (400). fullPage, selector, clip, quality and transparent shape an image " +
    "only (400 with the other formats), as does scale with pdf, markdown and html.",
  example: "jpeg",
});

export const PdfOptionsSchema = z.object({
  paper: z.enum(PAPER_SIZES).optional().openapi({
    default: DEFAULT_PDF.paper,
    description: "Paper size of a paginated PDF.",
    example: "Letter",
  }),
  landscape: z.boolean().optional().openapi({
    default: DEFAULT_PDF.landscape,
    description: "Landscape pages.",
  }),
  printBackground: z.boolean().optional().openapi({
    default: DEFAULT_PDF.printBackground,
    description: "Print background colours and images, as the page looks (the default).",
  }),
  margin: z.string().regex(PDF_MARGIN_PATTERN, {
    message: "a number with px, pt, in, cm or mm (or 0)",
  }).optional().openapi({
    default: DEFAULT_PDF.margin,
    description: "One margin for all four sides, a CSS length with px, pt, in, cm or mm (at " +
      `most ${MAX_PDF_MARGIN_PX} px, 2in).`,
    example: "1cm",
  }),
  scale: z.number().min(MIN_PDF_SCALE).max(MAX_PDF_SCALE).optional().openapi({
    default: DEFAULT_PDF.scale,
    description: `Zoom of the printed page, ${MIN_PDF_SCALE} to ${MAX_PDF_SCALE}.`,
    example: 0.8,
  }),
  pageRanges: z.string().max(MAX_PDF_PAGE_RANGES_LENGTH).regex(PDF_PAGE_RANGES_PATTERN, {
    message: 'page numbers and ranges separated by commas, e.g. "1-3, 5"',
  }).optional().openapi({
    description: 'The pages to keep, e.g. "1-3, 5"; a range past the last page stops there. ' +
      "Not with onePage (400).",
    example: "1-2",
  }),
  onePage: z.boolean().optional().openapi({
    default: DEFAULT_PDF.onePage,
    description: "true: the whole page on one PDF page as wide as the viewport and as tall as " +
      "the document (a PDF of the full-page screenshot, text still text); cut at the same " +
      "height as a full-page image (`truncated`). false: paginated for print.",
    example: true,
  }),
}).strict().optional().openapi({
  description: "How a PDF is laid out (format pdf only, else 400). The page is printed with " +
    "the request's `media` (screen by default, so the PDF looks like the screenshot; print " +
    "uses the page's print stylesheet), colour scheme and emulation.",
  example: { paper: "A4", margin: "1cm" },
});

export const RecordingOptionsSchema = z.object({
  durationMs: z.int().min(MIN_RECORDING_MS).max(MAX_RECORDING_MS).optional().openapi({
    default: DEFAULT_RECORDING_MS,
    description: `Length of the recording, ${MIN_RECORDING_MS} to ${MAX_RECORDING_MS} ms.`,
    example: 6000,
  }),
  fps: z.int().min(MIN_RECORDING_FPS).max(MAX_RECORDING_FPS).optional().openapi({
    description: `Frames a second, ${MIN_RECORDING_FPS} to ${MAX_RECORDING_FPS}: ` +
      `${DEFAULT_VIDEO_FPS} for mp4 and webm, ${DEFAULT_GIF_FPS} for gif by default.`,
    example: 30,
  }),
  scroll: z.enum(RECORDING_SCROLLS).optional().openapi({
    default: "smooth",
    description: "smooth: one steady scroll from the top to the bottom, held at both ends; " +
      "screens: a screen at a time, each held.",
    example: "smooth",
  }),
}).strict().optional().openapi({
  description: "How a recording (format mp4, webm or gif; else 400) scrolls the page. The page " +
    "is settled first and recorded at the viewport's size and scale: the first frame is the " +
    "top of the page, the last its bottom. At most " +
    `${MAX_RECORDING_FRAMES} frames (durationMs x fps / 1000) and ` +
    `${MAX_RECORDING_PIXELS} pixels over all frames (width x height x scale² x frames: 30 s of ` +
    "1280x720 at 30 fps); past them 400.",
  example: { durationMs: 6000, fps: 30, scroll: "smooth" },
});
