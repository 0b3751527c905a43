/**
 * An image capture as a model reads it best: within what models see at full sharpness (1568 px,
 * about 1.15 MP by default) the image itself; past that an overview of the whole, then tiles at
 * the capture's own resolution, each with its place in the capture said in text. One image
 * scaled down to fit (8000 px) leaves a long page's text unreadable to a model.
 */
import { Buffer } from "node:buffer";
import { base64Length } from "../bytes.ts";
import { invalidRequest } from "../errors.ts";
import type { ImageExporter } from "../codecs/exporter.ts";
import {
  cutImage,
  fitSize,
  type Piece,
  planTiles,
  type Rect,
  type VisionLimits,
  withinLimits,
} from "../codecs/tiles.ts";
import type { ViewRequest } from "./view_arguments.ts";

/** Most base64 of images one answer carries: far below what a model API takes in a request. */
export const MAX_VIEW_BASE64_BYTES = 16 * 1024 * 1024;

/** What the answer shows, for the structured content: positions in the capture's pixels. */
export interface ViewFacts {
  mode: "image" | "tiles" | "overview" | "region";
  limits: VisionLimits;
  overview?: { width: number; height: number };
  /** The tiles sent, numbered from 1 in the capture's (or region's) reading order. */
  tiles: (Rect & { tile: number })[];
  /** How many tiles the whole capture (or region) is. */
  tileCount: number;
  /** The arguments that bring the next tiles, when some were left out. */
  next?: { capture?: string; tile: number };
}

export type ViewItem =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string };

export interface ImageView {
  items: ViewItem[];
  facts: ViewFacts;
}

/**
 * The items showing `capture` (width x height) as `view` asks, for a mode other than "full".
 * `bytes` is sent as it is when it needs no cutting (it is within the limits, whole).
 */
export async function viewImage(
  capture: {
    bytes: Uint8Array;
    mimeType: string;
    width: number;
    height: number;
    /** Its kept copy's URI, which a follow-up call names to see more of it. */
    uri?: string;
  },
  view: ViewRequest,
  exporter: ImageExporter,
): Promise<ImageView> {
  const { width, height } = capture;
  const { limits } = view;
  const whole: Rect = { x: 0, y: 0, width, height };
  const area = view.region ? clampRegion(view.region, whole) : whole;
  if (!view.region && withinLimits(capture, limits)) {
    const data = Buffer.from(capture.bytes).toString("base64");
    return {
      items: [{ type: "image", data, mimeType: capture.mimeType }],
      facts: { mode: "image", limits, tiles: [], tileCount: 1 },
    };
  }
  const plan = planTiles(area, limits);
  const first = Math.min(view.firstTile, plan.length + 1);
  const overview = view.mode === "overview" || (!view.region && view.firstTile === 1);
  const chosen = view.mode === "overview" ? [] : plan.slice(first - 1, first - 1 + view.maxTiles);
  const pieces: Piece[] = chosen.map((rect) => ({ rect, ...rect }));
  if (overview) pieces.unshift({ rect: whole, ...fitSize(whole, limits) });
  const cut = await cutImage(capture.bytes, pieces, {
    format: view.tileFormat,
    quality: "high",
    exporter,
  });
  const items: ViewItem[] = [];
  const facts: ViewFacts = {
    mode: view.mode === "overview" ? "overview" : view.region ? "region" : "tiles",
    limits,
    tiles: [],
    tileCount: plan.length,
  };
  let budget = MAX_VIEW_BASE64_BYTES;
  const image = (bytes: Uint8Array, mimeType: string): ViewItem => {
    budget -= base64Length(bytes.length);
    return { type: "image", data: Buffer.from(bytes).toString("base64"), mimeType };
  };
  if (overview) {
    const o = cut.shift()!;
    facts.overview = { width: o.width, height: o.height };
    items.push({
      type: "text",
      text: `Overview: the whole ${width}x${height} capture scaled to ${o.width}x${o.height}` +
        (view.mode === "overview" ? "." : "; the tiles after it are at full resolution."),
    }, image(o.bytes, o.contentType));
  }
  let sent = 0;
  for (const [i, piece] of cut.entries()) {
    // The first tile always goes, so an answer never stalls on one large tile.
    if (sent > 0 && base64Length(piece.bytes.length) > budget) break;
    const tile = first + i;
    const { x, y, width: w, height: h } = piece.rect;
    items.push({
      type: "text",
      text: `Tile ${tile} of ${plan.length}: x ${x} to ${x + w}, y ${y} to ${y + h} of the ` +
        `${width}x${height} capture (${w}x${h} px, full resolution).`,
    }, image(piece.bytes, piece.contentType));
    facts.tiles.push({ tile, x, y, width: w, height: h });
    sent++;
  }
  const next = first + sent;
  if (view.mode !== "overview" && next <= plan.length) {
    const { uri } = capture;
    facts.next = { ...(uri ? { capture: uri } : {}), tile: next };
    const how = uri
      ? `call again with capture: "${uri}" and tile: ${next}`
      : `call again with the same arguments and tile: ${next}`;
    items.push({
      type: "text",
      text: `Tiles ${next} to ${plan.length} of ${plan.length} are not in this answer (at most ` +
        `${view.maxTiles} tiles and ${MAX_VIEW_BASE64_BYTES} bytes of base64 per answer): ` +
        `${how}, or with region: {x, y, width, height} for any area.`,
    });
  }
  return { items, facts };
}

/** `region` cut to the capture; one wholly outside it is the caller's mistake. */
function clampRegion(region: Rect, whole: Rect): Rect {
  const x = Math.min(region.x, whole.width);
  const y = Math.min(region.y, whole.height);
  const width = Math.min(region.width, whole.width - x);
  const height = Math.min(region.height, whole.height - y);
  if (width <= 0 || height <= 0) {
    throw invalidRequest(
      `region is outside the ${whole.width}x${whole.height} capture.`,
      { hint: "Give x, y, width and height within the capture's width and height." },
    );
  }
  return { x, y, width, height };
}
