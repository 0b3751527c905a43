/**
 * The frame's fields as the API takes them (on a capture, on POST /api/frame, in the MCP capture
 * tool) and where the finished frame put the image, from the renderer's own constants.
 */
import { z } from "@hono/zod-openapi";
import {
  BACKGROUND_PRESETS,
  BROWSER_BARS,
  DEFAULT_FIELDS,
  DEVICES,
  FIT_MODES,
  FRAME_LIMITS,
  SOCIAL_SIZES,
} from "../lib/frame/design.js";

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;
const PRESET_NAMES = Object.keys(BACKGROUND_PRESETS) as [string, ...string[]];
const SIZE_NAMES = Object.keys(SOCIAL_SIZES) as [string, ...string[]];
const SIZE_LIST = SIZE_NAMES.map((name) => {
  const { width, height } = SOCIAL_SIZES[name];
  return `${name} ${width}x${height}`;
}).join(", ");

const colour = (what: string, example: string) =>
  z.string().regex(HEX_COLOUR, { message: 'must be a colour as "#rrggbb"' }).openapi({
    description: what,
    example,
  });

const GradientSchema = z.object({
  from: colour("The colour the gradient starts with.", "#6a5cff"),
  to: colour("The colour it ends with.", "#ff7aa8"),
  angle: z.number().min(-360).max(360).optional().openapi({
    description: "CSS angle in degrees: 0 runs bottom to top, 90 left to right, 180 top to " +
      "bottom; default 135 (top left to bottom right).",
    example: 135,
  }),
}).strict();

const sideOf = (what: string, example: number) =>
  z.int().min(FRAME_LIMITS.side.min).max(FRAME_LIMITS.side.max).openapi({
    description: `${what} in pixels (${FRAME_LIMITS.side.min} to ${FRAME_LIMITS.side.max}).`,
    example,
  });

/** The frame around an image: every field optional, `{}` is the editor's starting design. */
export const FrameSchema = z.object({
  background: z.union([
    z.enum(["transparent", ...PRESET_NAMES]),
    colour("One colour.", "#f3f4f6"),
    GradientSchema,
  ]).optional().openapi({
    description: `"#rrggbb", "transparent", a gradient { from, to, angle? }, or a preset: ` +
      `${PRESET_NAMES.join(", ")} (default "${DEFAULT_FIELDS.background}").`,
    example: "ocean",
  }),
  padding: z.int().min(0).max(FRAME_LIMITS.padding).optional().openapi({
    description: "Space around the framed object: CSS pixels of the capture (times its scale) " +
      "without `size`, pixels of the output with it " +
      `(0 to ${FRAME_LIMITS.padding}, default ${DEFAULT_FIELDS.padding}).`,
    example: 64,
  }),
  radius: z.int().min(0).max(FRAME_LIMITS.radius).optional().openapi({
    description: "Corner radius of the window in CSS pixels of the capture " +
      `(0 to ${FRAME_LIMITS.radius}, default ${DEFAULT_FIELDS.radius}); devices have their own.`,
    example: 12,
  }),
  shadow: z.int().min(0).max(FRAME_LIMITS.shadow).optional().openapi({
    description: `Shadow strength 0 (none) to 100 (default ${DEFAULT_FIELDS.shadow}): its ` +
      "softness grows with it, in the capture's CSS pixels.",
    example: 40,
  }),
  browserBar: z.union([z.literal(false), z.enum(BROWSER_BARS)]).optional().openapi({
    description: "A browser's title bar above the capture with the page's own title and icon " +
      "(from the capture's `page`; nothing is fetched): light, dark, or auto (the page's " +
      "theme colour, else light); false for none (the default). Not on a phone.",
    example: "auto",
  }),
  device: z.enum(DEVICES).optional().openapi({
    description: "What holds the capture: none (a window, the default), browser (a window " +
      "with the bar, auto unless browserBar says otherwise), or a laptop, phone or tablet " +
      "drawn around it; a capture longer than the device's screen shows its top.",
    example: "laptop",
  }),
  size: z.union([
    z.enum(SIZE_NAMES),
    z.object({
      width: sideOf("Width", 1200),
      height: sideOf("Height", 630),
    }).strict(),
  ]).optional().openapi({
    description: `The output's exact size: a social size (${SIZE_LIST}) or { width, height }. ` +
      "Without it the output is the capture at its own resolution plus the frame.",
    example: "og",
  }),
  fit: z.enum(FIT_MODES).optional().openapi({
    description: "With `size`: contain shows the whole capture (the default), cover fills the " +
      "space and cuts the capture's edges evenly, top fills the width and shows the capture's " +
      "top, cut at the bottom edge with a fade.",
    example: "top",
  }),
}).strict();

export type FrameRequest = z.infer<typeof FrameSchema>;

const RectSchema = z.object({
  x: z.int(),
  y: z.int(),
  width: z.int(),
  height: z.int(),
});

/** Where a finished frame put the image. */
export const FramePlacementSchema = z.object({
  width: z.int().openapi({ description: "The frame's width.", example: 1200 }),
  height: z.int().openapi({ description: "The frame's height.", example: 630 }),
  scale: z.number().openapi({
    description: "Output pixels per pixel of the framed image.",
    example: 0.5208,
  }),
  crop: RectSchema.openapi({
    description: "The part of the image shown, in its own pixels (all of it unless a device's " +
      "screen or fit cover/top cut it).",
  }),
  image: RectSchema.openapi({
    description: "Where that part was drawn in the frame, in the frame's pixels.",
  }),
});
