/**
 * The service's frame step: an image (a capture from the cache or a render, or an upload) and a
 * design in, the finished file out. The pixels come from the same renderer the editor runs
 * (render.js); this module decodes, checks the size, runs it and encodes.
 */
import { Buffer } from "node:buffer";
import { invalidRequest } from "../errors.ts";
import type { EncoderName } from "../codecs/exporter.ts";
import { readImageInfo, sniffKind } from "../codecs/image_info.ts";
import { ExportFailure } from "../codecs/errors.ts";
import { CONTENT_TYPES, WEBP_MAX_SIDE } from "../codecs/presets.ts";
import { type FrameFields, resolveDesign } from "./design.js";
import { barStyleOf, type FrameLayout, layoutFrame } from "./layout.js";
import { type BarPage, renderFrame } from "./render.js";
import type { Rgba } from "./raster.js";
import { type FrameCodec, frameCodecFor, type FrameOutput } from "./codec.ts";
import { loadFrameFonts } from "./fonts.ts";
import { runInWorker } from "../codecs/one_shot_worker.ts";
import { canStartWorkers } from "../codecs/worker_pool.ts";
import type { RenderReply, RenderRequest } from "./render_worker.ts";

/** The largest finished frame, in pixels: 40 MP of RGBA is 160 MB held while it is drawn. */
export const MAX_FRAME_PIXELS = 40_000_000;

/** What a capture's answer says about its page (the bar's title, colour and icon). */
export interface FramePage {
  title?: string | null;
  themeColor?: string | null;
  faviconData?: string | null;
}

/** The image to frame and what is known about it. */
export interface FrameSource {
  /** PNG, JPEG or WebP bytes. */
  bytes: Uint8Array;
  /** Pixels per CSS pixel (a capture's scale); 1 for an upload. */
  pixelRatio?: number;
  /** The captured URL (its host is the bar's fallback title and initial). */
  url?: string;
  page?: FramePage | null;
}

/** Where the parts of a finished frame are, in its pixels (answered to clients). */
export interface FramePlacement {
  width: number;
  height: number;
  /** Output pixels per pixel of the framed image. */
  scale: number;
  /** The part of the image shown, in its own pixels. */
  crop: { x: number; y: number; width: number; height: number };
  /** Where that part was drawn. */
  image: { x: number; y: number; width: number; height: number };
}

export interface FramedImage {
  bytes: Uint8Array<ArrayBuffer>;
  contentType: string;
  format: FrameOutput["format"];
  placement: FramePlacement;
}

export interface Framer {
  readonly encoder: EncoderName;
  frame(source: FrameSource, fields: FrameFields, output: FrameOutput): Promise<FramedImage>;
}

/** The frame step on the export's codec path (`encoder`). */
export function createFramer(options: { encoder: EncoderName }): Framer {
  let codec: Promise<FrameCodec> | undefined;
  const codecs = () => codec ??= frameCodecFor(options.encoder);
  return {
    encoder: options.encoder,
    async frame(source, fields, output) {
      const design = resolveDesign(fields);
      const pixelRatio = source.pixelRatio ?? 1;
      const pixels = checkedSize(source.bytes, design, pixelRatio, output);
      const { decode, encode, decodeAny } = await codecs();
      const image = await decode(source.bytes);
      const bar = barStyleOf(design) !== false;
      const page = bar ? await barPage(source, { decode, decodeAny }) : null;
      const framed = await render({ source: image, design, pixelRatio, page }, pixels);
      const bytes = await encode(framed.image, output);
      return {
        bytes,
        contentType: CONTENT_TYPES[output.format],
        format: output.format,
        placement: placementOf(framed.layout),
      };
    },
  };
}

/**
 * Up to this many pixels a frame is drawn on the request thread (a social size or a 1080p
 * capture, tens of milliseconds); a larger one in a Worker of its own, where Workers run.
 */
const ON_THREAD_MAX_PIXELS = 4_000_000;
const WORKER_URL = new URL("./render_worker.ts", import.meta.url);

/** The frame (of `pixels` pixels) drawn here or in a Worker, by its size. */
async function render(
  request: RenderRequest,
  pixels: number,
): Promise<{ image: Rgba; layout: FrameLayout }> {
  const { source, design, pixelRatio, page } = request;
  if (pixels > ON_THREAD_MAX_PIXELS && await canStartWorkers()) {
    const moved = {
      ...request,
      source: owned(source),
      page: page && { ...page, icon: page.icon && owned(page.icon) },
    };
    const transfer = [moved.source, moved.page?.icon].flatMap((image) =>
      image ? [image.data.buffer as ArrayBuffer] : []
    );
    return await runInWorker<RenderReply>(WORKER_URL, moved, transfer);
  }
  const fonts = page ? await loadFrameFonts() : null;
  return renderFrame(source, design, { pixelRatio, page, fonts });
}

/** Pixels whose buffer is theirs alone, so it can be handed to a Worker. */
function owned(image: Rgba): Rgba {
  const { data } = image;
  if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) return image;
  return { ...image, data: data.slice() };
}

/**
 * The frame's pixel count from the image's header; refuses, before any decoding, a frame whose
 * canvas would be over the bounds.
 */
function checkedSize(
  bytes: Uint8Array,
  design: ReturnType<typeof resolveDesign>,
  pixelRatio: number,
  output: FrameOutput,
): number {
  const kind = sniffKind(bytes);
  const info = kind && readImageInfo(kind, bytes);
  if (!info) throw new ExportFailure({ kind: bytes.length === 0 ? "empty" : "not_an_image" });
  // Sideways EXIF orientations swap the sides the frame sees.
  const sideways = info.orientation >= 5;
  const width = sideways ? info.height : info.width;
  const height = sideways ? info.width : info.height;
  const layout = layoutFrame(design, { width, height, pixelRatio });
  const pixels = layout.width * layout.height;
  if (pixels > MAX_FRAME_PIXELS) {
    throw invalidRequest(
      `The framed image would be ${layout.width}x${layout.height} pixels, over the ` +
        `${MAX_FRAME_PIXELS} pixel limit of a frame.`,
      { hint: 'Send frame.size (for example "og") to fit it to a size, or less padding.' },
    );
  }
  if (output.format === "webp" && Math.max(layout.width, layout.height) > WEBP_MAX_SIDE) {
    throw invalidRequest(
      `The framed image would be ${layout.width}x${layout.height} pixels; WebP holds at most ` +
        `${WEBP_MAX_SIDE} on a side.`,
      { hint: "Ask for PNG or JPEG, or send frame.size to fit it to a size." },
    );
  }
  return pixels;
}

/** The bar's contents from the source: title (else host), theme colour, decoded icon. */
async function barPage(
  source: FrameSource,
  codec: Pick<FrameCodec, "decode" | "decodeAny">,
): Promise<BarPage | null> {
  if (!source.page && !source.url) return null;
  const host = hostOf(source.url);
  return {
    title: source.page?.title?.trim() || host || "Untitled",
    host: host || "html",
    themeColor: source.page?.themeColor ?? null,
    icon: await iconOf(source.page?.faviconData ?? null, codec),
  };
}

function hostOf(url: string | undefined): string {
  if (!url?.startsWith("http")) return "";
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

const DATA_URL = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/=]+)$/;

/**
 * A page's icon (a data: URL the capture carried) as pixels, or null: then the bar shows the
 * host's initial. An .ico is read through the PNG it holds; icons in other forms are read by
 * libvips where it runs.
 */
async function iconOf(
  dataUrl: string | null,
  codec: Pick<FrameCodec, "decode" | "decodeAny">,
): Promise<Rgba | null> {
  const match = dataUrl ? DATA_URL.exec(dataUrl) : null;
  if (!match) return null;
  let bytes: Uint8Array = new Uint8Array(Buffer.from(match[1], "base64"));
  const inner = icoImage(bytes);
  if (inner) bytes = inner;
  try {
    if (sniffKind(bytes)) return await codec.decode(bytes);
  } catch {
    return null;
  }
  return await codec.decodeAny(bytes);
}

/** The first image of an .ico when it is a PNG (the form current icons take), else null. */
function icoImage(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length < 22 || bytes[0] !== 0 || bytes[1] !== 0 || bytes[2] !== 1 || bytes[3] !== 0) {
    return null;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = view.getUint32(14, true);
  const offset = view.getUint32(18, true);
  if (offset + size > bytes.length) return null;
  const image = bytes.subarray(offset, offset + size);
  return sniffKind(image) === "png" ? image : null;
}

function placementOf(layout: FrameLayout): FramePlacement {
  return {
    width: layout.width,
    height: layout.height,
    scale: layout.scale,
    crop: layout.crop,
    image: layout.capture,
  };
}
