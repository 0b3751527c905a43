/**
 * Worker entry point of one large frame (framer.ts starts one per frame over its on-thread
 * bound): drawing tens of megapixels takes seconds, which must not stall the request thread.
 */
import type { Design } from "./design.js";
import type { BarPage } from "./render.js";
import { renderFrame } from "./render.js";
import type { FrameLayout } from "./layout.js";
import type { Rgba } from "./raster.js";
import { loadFrameFonts } from "./fonts.ts";

/** What framer.ts posts: the image (its buffer transferred), the design and the bar's page. */
export interface RenderRequest {
  source: Rgba;
  design: Design;
  pixelRatio: number;
  page: BarPage | null;
}

/** The finished frame (its buffer transferred back) and its layout, or why there is none. */
export type RenderReply = { image: Rgba; layout: FrameLayout } | { error: string };

// Typed view of the worker global: this file is checked with the window lib like the rest.
const scope = self as unknown as {
  postMessage(message: RenderReply, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<RenderRequest>) => void) | null;
};

scope.onmessage = async ({ data: { source, design, pixelRatio, page } }) => {
  try {
    const fonts = page ? await loadFrameFonts() : null;
    const { image, layout } = renderFrame(source, design, { pixelRatio, page, fonts });
    scope.postMessage({ image, layout }, [image.data.buffer as ArrayBuffer]);
  } catch (error) {
    scope.postMessage({ error: String(error) });
  }
};
