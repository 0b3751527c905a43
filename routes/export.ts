import { createRoute, z } from "@hono/zod-openapi";
import { ExportFailure } from "../lib/codecs/errors.ts";
import { exportAnswer } from "../lib/codecs/failures.ts";
import { EXPORT_FORMATS, MAX_PIXELS, MAX_SIDE, QUALITY_PRESETS } from "../lib/codecs/presets.ts";
import { binaryContent, BUSY_HEADERS, errorResponses } from "../lib/http/openapi_responses.ts";
import { createRouter, mountMethodProbe } from "../lib/http/router.ts";
import { METRICS, secondsSince } from "../lib/telemetry/metrics.ts";
import { outcomeOf, traced } from "../lib/telemetry/trace.ts";

const TAG = "Export";

export const ExportRequestSchema = z.object({
  image: z.file().openapi({
    type: "string",
    format: "binary",
    description: "The picture to recompress: PNG, JPEG or WebP, recognised by its bytes.",
  }),
  format: z.enum(EXPORT_FORMATS).openapi({ description: "Output format.", example: "webp" }),
  qualityPreset: z.enum(QUALITY_PRESETS).openapi({
    description: "Compression preset applied to the chosen format.",
    example: "high",
  }),
}).openapi("ExportRequest");

const described = (description: string, example: string) =>
  z.string().openapi({ description, example });

const errors = errorResponses({
  400: {
    when: "No image part or not a multipart/form-data body (invalid_request); format or " +
      "qualityPreset outside the allowed values, a file that is not PNG, JPEG or WebP by its " +
      `bytes, an animated WebP, or an image over ${MAX_PIXELS / 1e6} megapixels or ` +
      `${MAX_SIDE} pixels per side (unsupported_value).`,
    codes: ["invalid_request", "unsupported_value"],
  },
  413: {
    when: "The body is larger than the upload limit (stated in bytes in the hint); it is " +
      "refused while streaming.",
    codes: ["invalid_request"],
  },
  500: {
    when: "The file passed the checks but could not be decoded or encoded.",
    codes: ["internal_error"],
  },
  503: {
    when: "Too many exports are in progress (the encoder queue is full); retry after the " +
      "Retry-After header's seconds.",
    codes: ["upstream_unavailable"],
  },
});

const exportRoute = createRoute({
  method: "post",
  path: "/api/export",
  operationId: "optimizeExportImage",
  tags: [TAG],
  summary: "Recompress an image to PNG, JPEG or WebP at a quality preset",
  description: "Upload an image as multipart/form-data and get the recompressed file back as " +
    "raw bytes (a download). JPEG: MozJPEG, progressive with optimised Huffman tables, quality " +
    "90 with 4:4:4 chroma (high), 75 and 60 with 4:2:0 (medium, low). WebP: libwebp method 4, " +
    "quality 90, 75, 50. PNG: high is lossless and smallest (per band of rows the filter " +
    "strategy that deflates smallest, zlib 9; never larger than medium), medium lossless and " +
    "fast (adaptive filters, zlib 6), low a " +
    "palette of at most 256 colours chosen by libimagequant (quality 80, dithered, alpha kept). " +
    "EXIF orientation is applied; an RGB ICC colour profile (e.g. Display P3) is kept " +
    "unconverted, every other piece of metadata (EXIF, GPS, XMP, comments) is stripped. CMYK " +
    "and YCCK JPEGs are accepted. JPEG output is flattened onto white, PNG and WebP keep " +
    "transparency. The output has the input's (upright) dimensions. " +
    "The input type is read from the file's bytes, never from its name or Content-Type.",
  request: {
    body: {
      required: true,
      content: { "multipart/form-data": { schema: ExportRequestSchema } },
    },
  },
  responses: {
    200: {
      description: "The recompressed image, as a download named export.<ext>.",
      headers: z.object({
        "Content-Disposition": described(
          "Always an attachment.",
          'attachment; filename="export.webp"',
        ),
        "X-Export-Input-Bytes": described("Size of the uploaded image in bytes.", "1048576"),
        "X-Export-Output-Bytes": described("Size of the returned image in bytes.", "86016"),
        "X-Export-Encoder": described("Codec path that produced it: sharp or wasm.", "sharp"),
      }),
      content: binaryContent("image/png", "image/jpeg", "image/webp"),
    },
    ...errors,
    503: { ...errors[503], headers: BUSY_HEADERS },
  },
});

/** POST /api/export (and its GET method probe). */
export function createExportRouter() {
  const router = createRouter().openapi(exportRoute, async (c) => {
    const { image, format, qualityPreset } = c.req.valid("form");
    const { exporter } = c.var.deps;
    // The part's own bytes where the form parser kept them (lib/http/form_parser.ts PartFile).
    const input = await image.bytes();
    const inputBytes = input.length; // read now: the exporter may hand the buffer to a worker
    Object.assign(c.var.logFields, {
      encoder: exporter.encoder,
      format,
      qualityPreset,
      inputBytes,
    });
    let result;
    const labels = { format, preset: qualityPreset, path: exporter.encoder };
    const started = performance.now();
    let outcome = "ok";
    try {
      result = await traced(
        "export",
        labels,
        () =>
          exporter.export(input, { format, preset: qualityPreset }).catch((error) => {
            // A decoder's words go to the log line only, never to the client.
            if (error instanceof ExportFailure && error.detail.kind === "undecodable") {
              c.var.logFields.exportFailure = error.detail.reason;
            }
            // Mapped inside the span, so the span's outcome is the answer's code.
            throw exportAnswer(error);
          }),
      );
    } catch (error) {
      outcome = outcomeOf(error);
      throw error;
    } finally {
      METRICS.exportDuration.observe({ ...labels, outcome }, secondsSince(started));
    }
    Object.assign(c.var.logFields, {
      outputBytes: result.bytes.length,
      width: result.width,
      height: result.height,
    });
    return c.body(result.bytes, 200, {
      "Content-Type": result.contentType,
      "Content-Length": String(result.bytes.length),
      "Content-Disposition": `attachment; filename="export.${result.extension}"`,
      "X-Export-Input-Bytes": String(inputBytes),
      "X-Export-Output-Bytes": String(result.bytes.length),
      "X-Export-Encoder": exporter.encoder,
      // The upload is private and each export is one-off: never cache or sniff it.
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
  });
  mountMethodProbe(router, {
    path: "/api/export",
    operationId: "optimizeExportImageMethodProbe",
    tag: TAG,
  });
  return router;
}
