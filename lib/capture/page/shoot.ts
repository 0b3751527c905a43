/**
 * The screenshot calls: the viewport as it is, or an area of the document drawn beyond the
 * viewport without resizing it (so the layout, 100vh sections and fixed headers, stays what the
 * viewport shows), in bands joined by png_stitch.ts where one call could not hold it.
 */
import { JOINED_FORMAT } from "./shot_plan.ts";
import type { Page } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";
import { traced } from "../../telemetry/trace.ts";
import { createPngStitcher } from "../../codecs/png_stitch.ts";
import { pngHeader } from "../../codecs/png_rows.ts";
import type { CaptureRect, ImageFormat } from "../request/options.ts";
import { PageFailure } from "./page_failure.ts";

// A page whose main thread never yields cannot paint; give up on it rather than hang.
const SCREENSHOT_TIMEOUT_MS = 10_000;
// Large areas take longer to draw and encode (about 1 s per 30 megapixels here), and more again
// on a loaded machine.
const PIXELS_PER_MS = 5_000;
// One call draws at most this many device px of height: software rendering here draws 40,000 px
// in one call, but a browser drawing on a GPU cuts or blanks what exceeds its texture size.
const ONE_CALL_DEVICE_PX = 16_384;

export interface ShotStyle {
  scale: number;
  /** No default white behind the page: the PNG (or WebP) keeps its alpha. */
  transparent: boolean;
  /** Chromium encodes jpeg and webp itself: no PNG to decode and encode again. */
  format: ImageFormat;
  /** Of a jpeg or webp. */
  quality?: number;
}

/** An image and its format. */
export interface Shot {
  image: Uint8Array;
  format: ImageFormat;
}

/** What the viewport shows, in the style's format; a PageFailure when the page cannot paint. */
export async function shootViewport(page: Page, style: ShotStyle): Promise<Uint8Array> {
  return await screenshot(page, { clip: null, style });
}

/**
 * An area of the document: in one call in the style's format, or past what one call can hold in
 * bands joined into one image of JOINED_FORMAT (who encodes it then: shot_plan.ts, encoderOf).
 */
export async function shootArea(
  page: Page,
  area: { clip: CaptureRect; style: ShotStyle },
): Promise<Shot> {
  const { clip, style } = area;
  const bandCss = Math.max(1, Math.floor(ONE_CALL_DEVICE_PX / style.scale));
  if (clip.height <= bandCss) {
    return { image: await screenshot(page, { clip, style }), format: style.format };
  }
  const bandStyle = { ...style, format: JOINED_FORMAT } as const;
  const stitcher = createPngStitcher();
  for (let y = clip.y; y < clip.y + clip.height; y += bandCss) {
    const height = Math.min(bandCss, clip.y + clip.height - y);
    const png = await screenshot(page, { clip: { ...clip, y, height }, style: bandStyle });
    stitcher.add({ png, skipRows: 0, rows: Math.min(pngHeader(png).height, height * style.scale) });
  }
  return { image: stitcher.finish(), format: JOINED_FORMAT };
}

async function screenshot(
  page: Page,
  shot: { clip: CaptureRect | null; style: ShotStyle },
): Promise<Uint8Array> {
  const { clip, style } = shot;
  const pixels = clip ? clip.width * clip.height * style.scale * style.scale : 0;
  const png = await withTimeout(
    traced("capture.screenshot", {}, () =>
      page.screenshot({
        type: style.format,
        ...(style.format !== "png" && style.quality !== undefined
          ? { quality: style.quality }
          : {}),
        optimizeForSpeed: true,
        ...(clip ? { clip, captureBeyondViewport: true } : { captureBeyondViewport: false }),
        ...(style.transparent ? { omitBackground: true } : {}),
      })),
    SCREENSHOT_TIMEOUT_MS + pixels / PIXELS_PER_MS,
    () => new PageFailure({ kind: "no_paint" }),
  );
  return new Uint8Array(png);
}
