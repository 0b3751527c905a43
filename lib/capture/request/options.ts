/**
 * The optional capture options (viewport size and devices, full page, scale, one element,
 * hidden elements, ads, consent dialogs, waits, settling): their defaults, limits, and the
 * canonical form that enters the cache key.
 */
import type { DeviceName } from "./devices.ts";
import { MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE } from "../../image_limits.ts";

export const SCALES = [1, 2, 3] as const;
export type Scale = typeof SCALES[number];

/** Longest selector accepted (selector, waitForSelector, each of hideSelectors). */
export const MAX_SELECTOR_LENGTH = 256;
/** Most selectors in hideSelectors (and in removeSelectors). */
export const MAX_HIDE_SELECTORS = 20;
/** Largest `styles`, in UTF-8 bytes: room for real overrides, not a whole framework. */
export const MAX_STYLES_BYTES = 16 * 1024;
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

/** A rectangle of the document in CSS px. */
export interface CaptureRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

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
  transparent?: boolean;
  blockAds?: boolean;
  hideAnnoyances?: boolean;
  hideCookieBanners?: boolean;
  waitForSelector?: string;
  delayMs?: number;
  /** false: the first frame as it is, without finishing entrances or growing a full page. */
  settle?: boolean;
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
  >
> = {
  fullPage: false,
  scale: 1,
  hideSelectors: [],
  removeSelectors: [],
  transparent: false,
  blockAds: false,
  hideAnnoyances: false,
  hideCookieBanners: false,
  delayMs: 0,
  settle: true,
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
    kept[key] = value;
  }
  return kept as CaptureOptions;
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

/** The capture height cap in CSS pixels for a width in CSS px and a scale (see MAX_CAPTURE_*). */
export function maxCaptureHeight(widthCss: number, scale: number): number {
  const bySide = Math.floor(MAX_CAPTURE_SIDE / scale);
  const byPixels = Math.floor(MAX_CAPTURE_PIXELS / (Math.max(1, widthCss) * scale * scale));
  return Math.max(1, Math.min(bySide, byPixels));
}
