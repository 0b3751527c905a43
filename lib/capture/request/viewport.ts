/**
 * The viewport of a job: a named device's or the device type's size, overridden by width and
 * height, and its limits (the bounds themselves are in options.ts).
 */
import { invalidField } from "./request_failure.ts";
import { DEVICES, type DeviceType, VIEWPORTS } from "./devices.ts";
import { type CaptureOptions, MAX_VIEWPORT_PIXELS } from "./options.ts";

/** The viewport a job is shot at: the device's or the device type's, sized by width/height. */
export function viewportOf(
  deviceType: DeviceType,
  options: CaptureOptions = {},
): { width: number; height: number; scale: number } {
  const base = options.device ? DEVICES[options.device] : { ...VIEWPORTS[deviceType], scale: 1 };
  return {
    width: options.width ?? base.width,
    height: options.height ?? base.height,
    // An explicit scale (not the default 1) wins over the device's own pixel ratio.
    scale: options.scale && options.scale !== 1 ? options.scale : base.scale,
  };
}

/**
 * The device type a job runs as (a named device brings its own) and its options without a
 * width or height equal to the default, so spelling out the default size keeps the plain key.
 * 400 when the viewport would be a bitmap past MAX_VIEWPORT_PIXELS.
 */
export function resolveViewport(
  deviceType: DeviceType,
  options: CaptureOptions,
): { deviceType: DeviceType; options: CaptureOptions } {
  const runAs = options.device ? DEVICES[options.device].deviceType : deviceType;
  const base = viewportOf(runAs, { device: options.device });
  const kept = { ...options };
  if (kept.width === base.width) delete kept.width;
  if (kept.height === base.height) delete kept.height;
  const { width, height, scale } = viewportOf(runAs, kept);
  if (width * height * scale * scale > MAX_VIEWPORT_PIXELS) {
    throw invalidField(
      "The viewport is too large at this scale.",
      `${width}x${height} at scale ${scale} is ${width * scale}x${height * scale} image ` +
        `pixels; width x height x scale^2 may be at most ${MAX_VIEWPORT_PIXELS} ` +
        "(5760x3240): lower the scale or the size.",
    );
  }
  return { deviceType: runAs, options: kept };
}
