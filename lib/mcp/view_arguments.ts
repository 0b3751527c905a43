/**
 * The arguments capture_screenshot takes beyond the HTTP operation's: how the capture is shown
 * to the model. They are taken out of the call before the operation runs, so the capture (and
 * its cache entry) is the same whatever view is asked: a follow-up call for more tiles or a
 * region with the same capture arguments is a cache hit.
 */
import { z } from "zod";
import { invalidRequest } from "../errors.ts";
import type { SchemaObject } from "../discovery/openapi_document.ts";
import type { Rect, VisionLimits } from "../codecs/tiles.ts";

export type ViewMode = "tiles" | "overview" | "full";
export type TileFormat = "png" | "jpeg" | "webp";

/** What the call asked to see of the capture, with the operator's defaults filled in. */
export interface ViewRequest {
  /** The URI of a kept capture to show instead of capturing. */
  capture?: string;
  mode: ViewMode;
  limits: VisionLimits;
  /** The first tile to send, counted from 1. */
  firstTile: number;
  maxTiles: number;
  region?: Rect;
  tileFormat: TileFormat;
  /** Also answer with the page's text as Markdown (a second capture, of format markdown). */
  includeText: boolean;
}

/** The operator's defaults (MCP_IMAGE_MAX_SIDE, MCP_IMAGE_MAX_PIXELS, MCP_MAX_TILES). */
export interface ViewDefaults {
  limits: VisionLimits;
  maxTiles: number;
}

// Per call, an agent may ask for more than the operator's default, up to what clients take.
const MAX_SIDE = 8000;
const MAX_PIXELS = 64_000_000;
const MAX_TILES = 200;

const ViewArguments = z.object({
  capture: z.string().min(1).optional().describe(
    "The link of an earlier answer (its resource_link URI, shotline://captures/...): shows " +
      "that exact capture again, with tile or region, instead of capturing the page (no new " +
      "capture; the other capture arguments are not used). Links expire.",
  ),
  view: z.enum(["tiles", "overview", "full"]).optional().describe(
    "How the capture is shown. tiles (default): the image itself when it is within " +
      "imageLimits, else an overview (the whole capture scaled down to imageLimits) followed by " +
      "tiles at the capture's full resolution, each within imageLimits, in reading order, each " +
      "preceded by a text with its position in the capture's pixels. overview: the overview " +
      "alone. full: one image, scaled down only to what clients accept (8000 px a side, 5 MB).",
  ),
  tile: z.int().min(1).optional().describe(
    "The first tile to send, counted from 1 (default 1): to get the tiles an earlier answer " +
      "left out, call again with its capture link (capture) and the tile it names.",
  ),
  maxTiles: z.int().min(1).max(MAX_TILES).optional().describe(
    "Most tiles in this answer (default set by the operator, 24 unless changed). The answer's " +
      "images also total at most 16 MiB of base64; what is left out is named in the answer.",
  ),
  region: z.object({
    x: z.int().min(0),
    y: z.int().min(0),
    width: z.int().min(1),
    height: z.int().min(1),
  }).optional().describe(
    "Only this area of the capture, in the capture's pixels (what the tiles' positions " +
      "give), at full resolution: tiled like the whole when larger than imageLimits.",
  ),
  imageLimits: z.object({
    maxSide: z.int().min(64).max(MAX_SIDE).optional(),
    maxPixels: z.int().min(4096).max(MAX_PIXELS).optional(),
  }).optional().describe(
    "Largest image to send: longest side in px and pixel count. Defaults: 1568 px and " +
      "1,150,000 pixels (what models read at full sharpness), unless the operator changed them.",
  ),
  tileFormat: z.enum(["png", "jpeg", "webp"]).optional().describe(
    "Format of the overview and tiles: png (default, lossless), or jpeg or webp (smaller, " +
      "at high quality).",
  ),
  includeText: z.boolean().optional().describe(
    "Also answer with the page's readable text as Markdown (what read_page returns). It is " +
      "a second capture of the page, counted against the same limit.",
  ),
});

/** The view arguments' names: what is taken out before the operation runs. */
export const VIEW_ARGUMENT_NAMES: readonly string[] = Object.keys(ViewArguments.shape);

/** The view arguments as JSON Schema properties, for the tool's input schema. */
export function viewArgumentSchemas(): Record<string, SchemaObject> {
  const schema = z.toJSONSchema(ViewArguments, { target: "draft-2020-12" }) as SchemaObject;
  return schema.properties as Record<string, SchemaObject>;
}

/**
 * Splits a call's arguments into the view (validated, defaults filled in) and the rest, which
 * go to the operation. A malformed view argument is the operation's kind of 400.
 */
export function splitViewArguments(
  args: Record<string, unknown>,
  defaults: ViewDefaults,
): { view: ViewRequest; rest: Record<string, unknown> } {
  const picked: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    (VIEW_ARGUMENT_NAMES.includes(name) ? picked : rest)[name] = value;
  }
  const parsed = ViewArguments.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join(".");
    throw invalidRequest(`${field}: ${issue.message}.`, {
      hint: `See the schema of ${field} in tools/list.`,
    });
  }
  const v = parsed.data;
  return {
    rest,
    view: {
      ...(v.capture ? { capture: v.capture } : {}),
      mode: v.view ?? "tiles",
      limits: {
        maxSide: v.imageLimits?.maxSide ?? defaults.limits.maxSide,
        maxPixels: v.imageLimits?.maxPixels ?? defaults.limits.maxPixels,
      },
      firstTile: v.tile ?? 1,
      maxTiles: v.maxTiles ?? defaults.maxTiles,
      ...(v.region ? { region: v.region } : {}),
      tileFormat: v.tileFormat ?? "png",
      includeText: v.includeText ?? false,
    },
  };
}
