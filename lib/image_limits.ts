/**
 * The largest image the service makes or takes, shared by capture (what a full page may grow to)
 * and export (what an upload may be), so every capture can be exported.
 */

/** The longest side a canvas may have in browsers: the editor can still draw the image. */
export const MAX_IMAGE_SIDE = 32_767;

/** Image pixels in all: 512 MB of RGBA at most in whoever decodes it (3840x24000 fits). */
export const MAX_IMAGE_PIXELS = 128_000_000;

/** WebP stores each side in 14 bits: a taller image cannot be written as WebP at all. */
export const WEBP_MAX_SIDE = 16_383;
