/**
 * The optional capture options (viewport size and devices, full page, scale, one element,
 * hidden elements, ads, consent dialogs, waits, settling, image format, emulation, request
 * blocking, clip): their defaults, limits, and the canonical form that enters the cache key.
 */
import type { DeviceName } from "./devices.ts";
import {
  DEFAULT_PDF,
  type OutputFormat,
  outputKind,
  type PdfOptions,
  type RecordingOptions,
  resolvedRecording,
  type VideoFormat,
} from "./output.ts";
import { MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, WEBP_MAX_SIDE } from "../../image_limits.ts";

export const SCALES = [1, 2, 3] as const;
export type Scale = typeof SCALES[number];

/** Longest selector accepted (selector, waitForSelector, each of hideSelectors). */
export const MAX_SELECTOR_LENGTH = 256;
/** Most selectors in hideSelectors (and in removeSelectors). */
export const MAX_HIDE_SELECTORS = 20;
/** Largest `styles`, in UTF-8 bytes: room for real overrides, not a whole framework. */
export const MAX_STYLES_BYTES = 16 * 1024;
/** Most scripts one capture runs in the page. */
export const MAX_SCRIPTS = 5;
/** Largest script, in UTF-8 bytes: a few interactions, not a bundle. */
export const MAX_SCRIPT_BYTES = 16 * 1024;
/** Longest delayMs. */
export const MAX_DELAY_MS = 10_000;

/** Viewport bounds in CSS pixels: from a small phone to a 4K screen. */
export const MIN_WIDTH = 320;
export const MAX_WIDTH = 3840;
export const MIN_HEIGHT = 240;
export const MAX_HEIGHT = 2160;
// A viewport's image pixels (width x height x scale^2) stay within what desktop at scale 3 has
// always been allowed (5760x3240): a 4K viewport at scale 3 would be a 300 MB bitmap.
export const MAX_VIEWPORT_PIXELS = 1920 * 1080 * 9;

/** A full page, element or clip is cut at this many image pixels of height... */
export const MAX_CAPTURE_SIDE = MAX_IMAGE_SIDE;
/** ...and at this many image pixels in all. */
export const MAX_CAPTURE_PIXELS = MAX_IMAGE_PIXELS;
/** A webp capture's longest side (the format's own limit). */
export const MAX_WEBP_SIDE = WEBP_MAX_SIDE;

/** A rectangle of the document in CSS px. */
export interface CaptureRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export { IMAGE_FORMATS, type ImageFormat } from "./output.ts";
/** quality of a jpeg or webp capture when the request leaves it out. */
export const DEFAULT_QUALITY = 80;

/** CSS media types a page can be rendered for. */
export const MEDIA_TYPES = ["screen", "print"] as const;
export type MediaType = typeof MEDIA_TYPES[number];

/** Resource types blockResources may name (the page's own document is never one of them). */
export const RESOURCE_TYPES = [
  "image",
  "media",
  "font",
  "stylesheet",
  "script",
  "xhr",
  "fetch",
  "websocket",
  "other",
] as const;
export type ResourceType = typeof RESOURCE_TYPES[number];

/** Longest userAgent: room for any real browser's, not a payload. */
export const MAX_USER_AGENT_LENGTH = 512;
/** Most patterns in blockRequests. */
export const MAX_BLOCK_REQUESTS = 50;
/** Longest pattern of blockRequests. */
export const MAX_PATTERN_LENGTH = 512;
/** Largest `html` document, in UTF-8 bytes. */
export const MAX_HTML_BYTES = 2 * 1024 * 1024;
/**
 * Largest body of a capture request: a whole `html` document plus room for its JSON escaping
 * and the other fields. Every other JSON body of the API stays far smaller.
 */
export const SCREENSHOT_BODY_LIMIT = MAX_HTML_BYTES + 1024 * 1024;

/** What a request may ask for beyond url, device and colour scheme; every field optional. */
export interface CaptureOptions {
  width?: number;
  height?: number;
  device?: DeviceName;
  fullPage?: boolean;
  scale?: Scale;
  selector?: string;
  clip?: CaptureRect;
  hideSelectors?: string[];
  removeSelectors?: string[];
  styles?: string;
  clickSelector?: string;
  /** JavaScript run in the page, in order, after it loads and before the settle. */
  scripts?: string[];
  transparent?: boolean;
  blockAds?: boolean;
  hideAnnoyances?: boolean;
  hideCookieBanners?: boolean;
  waitForSelector?: string;
  delayMs?: number;
  /** false: the first frame as it is, without finishing entrances or growing a full page. */
  settle?: boolean;
  /** An image (png, jpeg, webp), a PDF, a recording (mp4, webm, gif) or text (markdown, html). */
  format?: OutputFormat;
  /** How a PDF is laid out (format pdf only). */
  pdf?: PdfOptions;
  /** How a recording scrolls (format mp4, webm or gif only). */
  recording?: RecordingOptions;
  /** 1-100, jpeg and webp only; the plan sets DEFAULT_QUALITY when they leave it out. */
  quality?: number;
  userAgent?: string;
  /** Canonical BCP 47 tag (navigator.language, Accept-Language, Intl). */
  locale?: string;
  /** Canonical IANA time zone name. */
  timezone?: string;
  reducedMotion?: boolean;
  media?: MediaType;
  javaScript?: boolean;
  blockResources?: ResourceType[];
  blockRequests?: string[];
}

/** The value each option has when it is left out. */
export const DEFAULT_OPTIONS: Required<
  Omit<
    CaptureOptions,
    | "selector"
    | "clip"
    | "waitForSelector"
    | "width"
    | "height"
    | "device"
    | "styles"
    | "clickSelector"
    | "quality"
    | "userAgent"
    | "locale"
    | "timezone"
    | "pdf"
    | "recording"
  >
> = {
  fullPage: false,
  scale: 1,
  hideSelectors: [],
  removeSelectors: [],
  scripts: [],
  transparent: false,
  blockAds: false,
  hideAnnoyances: false,
  hideCookieBanners: false,
  delayMs: 0,
  settle: true,
  format: "png",
  reducedMotion: false,
  media: "screen",
  javaScript: true,
  blockResources: [],
  blockRequests: [],
};

/**
 * The options that differ from their defaults, keys sorted: `{}` for a plain capture, so the
 * same request always gets the same cache key however it was spelled.
 */
export function canonicalOptions(options: CaptureOptions = {}): CaptureOptions {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(options).sort() as (keyof CaptureOptions)[]) {
    const value = options[key];
    if (value === undefined || value === "") continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (key in DEFAULT_OPTIONS && value === DEFAULT_OPTIONS[key as keyof typeof DEFAULT_OPTIONS]) {
      continue;
    }
    const canonical = canonicalValue(key, value, options);
    if (isEmptyObject(canonical)) continue;
    kept[key] = canonical;
  }
  return kept as CaptureOptions;
}

// Options that are sets: order and repeats do not change the render, so not the key either.
const SET_OPTIONS = new Set<keyof CaptureOptions>(["blockResources", "blockRequests"]);

/** One option's value in the key's form: sets sorted and unique, a clip's fields in one order. */
function canonicalValue(
  key: keyof CaptureOptions,
  value: unknown,
  options: CaptureOptions,
): unknown {
  if (SET_OPTIONS.has(key) && Array.isArray(value)) return [...new Set(value)].sort();
  if (key === "clip") {
    const { x, y, width, height } = value as CaptureRect;
    return { x, y, width, height };
  }
  if (key === "pdf") return withoutDefaults(value as PdfOptions, DEFAULT_PDF);
  if (key === "recording" && outputKind(options.format) === "video") {
    return withoutDefaults(
      value as RecordingOptions,
      resolvedRecording(options.format as VideoFormat),
    );
  }
  return value;
}

const isEmptyObject = (value: unknown) =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  Object.keys(value).length === 0;

/** An object option's fields that differ from `defaults`, keys sorted. */
function withoutDefaults<T extends object>(value: T, defaults: Partial<T>): Partial<T> {
  const kept: Partial<T> = {};
  for (const key of Object.keys(value).sort() as (keyof T)[]) {
    if (value[key] === undefined || value[key] === defaults[key]) continue;
    kept[key] = value[key];
  }
  return kept;
}

/** Whether a job asks for anything beyond a plain viewport capture. */
export function hasOptions(options: CaptureOptions | undefined): boolean {
  return Object.keys(canonicalOptions(options)).length > 0;
}

/**
 * A short digest of the non-default options (SHA-256 of their canonical JSON, 32 hex
 * characters), or null when there are none: a plain capture keeps its key unchanged.
 */
export async function optionsDigest(options: CaptureOptions | undefined): Promise<string | null> {
  const canonical = canonicalOptions(options);
  if (Object.keys(canonical).length === 0) return null;
  const bytes = new TextEncoder().encode(JSON.stringify(canonical));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The capture height cap in CSS pixels for a width in CSS px and a scale (see MAX_CAPTURE_*);
 * `maxSide` is lower for a format that cannot hold 32767 px (WebP).
 */
export function maxCaptureHeight(
  widthCss: number,
  scale: number,
  maxSide = MAX_CAPTURE_SIDE,
): number {
  const bySide = Math.floor(Math.min(maxSide, MAX_CAPTURE_SIDE) / scale);
  const byPixels = Math.floor(MAX_CAPTURE_PIXELS / (Math.max(1, widthCss) * scale * scale));
  return Math.max(1, Math.min(bySide, byPixels));
}
