import { createRoute, z } from "@hono/zod-openapi";
import { exportAnswer } from "../lib/codecs/failures.ts";
import { EXPORT_FORMATS, EXTENSIONS, MAX_PIXELS, QUALITY_PRESETS } from "../lib/codecs/presets.ts";
import { invalidRequest } from "../lib/errors.ts";
import { MAX_FRAME_PIXELS } from "../lib/frame/framer.ts";
import { binaryContent, BUSY_HEADERS, errorResponses } from "../lib/http/openapi_responses.ts";
import { createRouter, mountMethodProbe, validationError } from "../lib/http/router.ts";
import { traced } from "../lib/telemetry/trace.ts";
import { FrameSchema } from "./frame_schemas.ts";

const TAG = "Frame";
const FIELD_NAMES = Object.keys(FrameSchema.shape) as (keyof typeof FrameSchema.shape)[];

const part = (description: string, example: string) =>
  z.string().optional().openapi({ description, example });

export const FrameRequestSchema = z.object({
  image: z.file().openapi({
    type: "string",
    format: "binary",
    description: "The picture to frame: PNG, JPEG or WebP, recognised by its bytes.",
  }),
  frame: part(
    "The whole design as one JSON object (the Frame schema). Or send its fields as parts of " +
      "their own, below; not both.",
    '{"background":"ocean","size":"og","device":"laptop"}',
  ),
  background: part('"#rrggbb", "transparent", a preset name, or a gradient as JSON.', "ocean"),
  padding: part("Whole pixels.", "64"),
  radius: part("Whole pixels.", "12"),
  shadow: part("0 to 100.", "40"),
  browserBar: part("false, light, dark or auto.", "dark"),
  device: part("none, browser, laptop, phone or tablet.", "browser"),
  size: part("A social size name, or { width, height } as JSON.", "og"),
  fit: part("contain, cover or top.", "contain"),
  format: z.enum(EXPORT_FORMATS).default("png").openapi({
    description: "Output format (default png).",
    example: "png",
  }),
  qualityPreset: z.enum(QUALITY_PRESETS).default("high").openapi({
    description: "Compression preset of the format, as POST /api/export (default high).",
    example: "high",
  }),
}).openapi("FrameRequest");

const described = (description: string, example: string) =>
  z.string().openapi({ description, example });

const errors = errorResponses({
  400: {
    when: "No image part or not a multipart/form-data body, a frame field that is unknown or " +
      "out of range (the message names it), both `frame` and separate fields (invalid_request); " +
      "format or qualityPreset outside the allowed values, a file that is not PNG, JPEG or " +
      `WebP by its bytes, an animated WebP, an image over ${MAX_PIXELS / 1e6} megapixels ` +
      `(unsupported_value), or a frame over ${MAX_FRAME_PIXELS / 1e6} megapixels.`,
    codes: ["invalid_request", "unsupported_value"],
  },
  413: {
    when: "The body is larger than the upload limit (stated in bytes in the hint).",
    codes: ["invalid_request"],
  },
  500: {
    when: "The file passed the checks but could not be decoded or encoded.",
    codes: ["internal_error"],
  },
  503: {
    when: "Too many exports and frames are in progress; retry after the Retry-After header's " +
      "seconds.",
    codes: ["upstream_unavailable"],
  },
});

const frameRoute = createRoute({
  method: "post",
  path: "/api/frame",
  operationId: "frameImage",
  tags: [TAG],
  summary: "Frame your own image: background, padding, corners, shadow, bar, device, size",
  description: "Upload an image as multipart/form-data with a design (one `frame` JSON part, " +
    "or its fields as parts) and get the finished picture back: the same renderer as the " +
    "editor and as `frame` on POST /api/screenshot, so the same design gives the same picture. " +
    "A browser bar here has no page: it shows its window buttons only. EXIF orientation is " +
    "applied; the output carries no metadata. The limits, admission and errors are those of " +
    "POST /api/export.",
  request: {
    body: {
      required: true,
      content: { "multipart/form-data": { schema: FrameRequestSchema } },
    },
  },
  responses: {
    200: {
      description: "The framed image, as a download named frame.<ext>.",
      headers: z.object({
        "Content-Disposition": described(
          "Always an attachment.",
          'attachment; filename="frame.png"',
        ),
        "X-Frame-Image": described(
          "Where the image was drawn in the frame: x,y,width,height in the frame's pixels.",
          "96,160,1008,567",
        ),
        "X-Export-Encoder": described("Codec path that produced it: sharp or wasm.", "sharp"),
      }),
      content: binaryContent("image/png", "image/jpeg", "image/webp"),
    },
    ...errors,
    503: { ...errors[503], headers: BUSY_HEADERS },
  },
});

/**
 * A part's text as the field's value: JSON where it parses (numbers, false, gradients, sizes),
 * the text itself otherwise (names, colours).
 */
function partValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The design from the `frame` part or from separate parts, validated: 400 names the field. */
function designOf(form: Record<string, unknown>) {
  const separate = FIELD_NAMES.filter((name) => typeof form[name] === "string");
  let fields: unknown;
  if (typeof form.frame === "string") {
    if (separate.length > 0) {
      throw invalidRequest(
        `Send frame or separate fields, not both (got ${separate.join(", ")}).`,
        {
          hint: "Put every field into the frame JSON part, or leave it out.",
        },
      );
    }
    fields = partValue(form.frame);
  } else {
    fields = Object.fromEntries(separate.map((name) => [name, partValue(String(form[name]))]));
  }
  const parsed = FrameSchema.safeParse(fields);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      ...issue,
      path: ["frame", ...issue.path],
    }));
    throw validationError(issues, { frame: fields });
  }
  return parsed.data;
}

/** POST /api/frame (and its GET method probe). */
export function createFrameRouter() {
  const router = createRouter().openapi(frameRoute, async (c) => {
    const form = c.req.valid("form");
    const { framer } = c.var.deps;
    const fields = designOf(form);
    const input = await form.image.bytes();
    const output = { format: form.format, preset: form.qualityPreset };
    Object.assign(c.var.logFields, { encoder: framer.encoder, format: output.format });
    const framed = await traced(
      "frame",
      { format: output.format, path: framer.encoder },
      () =>
        framer.frame({ bytes: input }, fields, output).catch((error) => {
          throw exportAnswer(error);
        }),
    );
    const { x, y, width, height } = framed.placement.image;
    Object.assign(c.var.logFields, {
      width: framed.placement.width,
      height: framed.placement.height,
      outputBytes: framed.bytes.length,
    });
    return c.body(framed.bytes, 200, {
      "Content-Type": framed.contentType,
      "Content-Length": String(framed.bytes.length),
      "Content-Disposition": `attachment; filename="frame.${EXTENSIONS[output.format]}"`,
      "X-Frame-Image": `${x},${y},${width},${height}`,
      "X-Export-Encoder": framer.encoder,
      // The upload is private and each frame is one-off: never cache or sniff it.
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
  });
  mountMethodProbe(router, { path: "/api/frame", operationId: "frameImageMethodProbe", tag: TAG });
  return router;
}
