/**
 * The outputs that take the whole settled page rather than shoot an area of it: a PDF, a
 * scrolling recording, the page's text. render.ts calls here in place of the shot when the plan
 * asks for one of them (shot_plan.ts, PlannedOutput).
 */
import type { Page } from "puppeteer-core";
import {
  type OutputFacts,
  type OutputFormat,
  recordingBudgetMs,
  type VideoFormat,
} from "../request/output.ts";
import type { VideoEncoders } from "../../codecs/video_encoder.ts";
import { recordScroll } from "./record_scroll.ts";
import { PageFailure } from "./page_failure.ts";
import type { PlannedOutput } from "./shot_plan.ts";
import { printPdf } from "./print_pdf.ts";
import { readContent } from "./read_content.ts";
import { traced } from "../../telemetry/trace.ts";

/** What an output hands back: its bytes, their format, and what they say about themselves. */
export interface TakenOutput {
  image: Uint8Array;
  format: OutputFormat;
  output?: OutputFacts;
  truncated: boolean;
}

export interface OutputContext {
  /** CAPTURE_TIMEOUT_MS: the bound of one step that is not a recording. */
  timeoutMs: number;
  /** ffmpeg's encoders (FFMPEG_PATH); absent, a recording is refused as without ffmpeg. */
  videoEncoders?: VideoEncoders;
}

/**
 * A PageFailure encoder_unavailable (503 naming it) unless ffmpeg and its encoder for `format`
 * are here, asked by the route before the page is loaded.
 */
export async function requireVideoEncoder(
  encoders: VideoEncoders | undefined,
  format: VideoFormat,
): Promise<void> {
  const missing = encoders ? await encoders.missing(format) : "ffmpeg";
  if (missing) throw new PageFailure({ kind: "encoder_unavailable", missing, format });
}

/** Takes the planned output of the page (anything but an image). */
export async function takeOutput(
  page: Page,
  output: Exclude<PlannedOutput, { kind: "image" }>,
  context: OutputContext,
): Promise<TakenOutput> {
  switch (output.kind) {
    case "pdf":
      return await traced("capture.pdf", {}, async (span) => {
        const printed = await printPdf(page, {
          pdf: output.pdf,
          media: output.media,
          timeoutMs: context.timeoutMs,
        });
        span.setAttribute("pages", printed.pages);
        return {
          image: printed.bytes,
          format: "pdf",
          output: { pages: printed.pages },
          truncated: printed.truncated,
        };
      });
    case "text":
      return await traced("capture.read", {}, async () => {
        const read = await readContent(page, output.format, context.timeoutMs);
        return {
          image: new TextEncoder().encode(read.text),
          format: output.format,
          truncated: read.truncated,
        };
      });
    case "video":
      return await traced("capture.recording", {}, async (span) => {
        const { format, recording } = output;
        const viewport = page.viewport();
        // Frames at the viewport's pixel ratio: `scale`, or a named device's own.
        const scale = viewport?.deviceScaleFactor ?? 1;
        const side = (css: number | undefined) => Math.round((css ?? 0) * scale);
        // The route asked already; ffmpeg may have gone since, so the lookup says it again.
        const lookup = context.videoEncoders
          ? await context.videoEncoders.encoderFor(format, {
            fps: recording.fps,
            width: side(viewport?.width),
            height: side(viewport?.height),
          })
          : { missing: "ffmpeg" as const };
        if ("missing" in lookup) {
          throw new PageFailure({ kind: "encoder_unavailable", missing: lookup.missing, format });
        }
        // A recording has its own budget, past the page's: every frame at a loaded pace.
        const recorded = await recordScroll(page, {
          format,
          recording,
          scale,
          encoder: lookup.encoder,
          budgetEnd: performance.now() + recordingBudgetMs(recording, {
            width: viewport?.width ?? 0,
            height: viewport?.height ?? 0,
            scale,
          }),
        });
        span.setAttribute("frames", recorded.frames);
        const { width, height, durationMs, frames } = recorded;
        return {
          image: recorded.bytes,
          format,
          output: { width, height, durationMs, frames, fps: recording.fps },
          truncated: false,
        };
      });
  }
}
