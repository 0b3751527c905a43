/**
 * The capture capability as the HTTP layer sees it: what a request may ask for (options, devices,
 * credentials, their limits and canonical form, the accepted URLs), the contract of the backends,
 * and the few helpers a route needs. Routes import capture from here only; everything else in
 * lib/capture/ is the capability's own business.
 */
export * from "./request/options.ts";
export { DEVICE_NAMES, DEVICES } from "./request/devices.ts";
export {
  type Credentials,
  MAX_COOKIE_BYTES,
  MAX_COOKIES,
  MAX_HEADER_BYTES,
  MAX_HEADERS,
} from "./request/credentials.ts";
export { type CaptureRequestFields, planCapture } from "./request/plan.ts";
export { parseTargetUrl } from "./request/target_url.ts";
export { FORMAT_MEDIA_TYPES } from "./request/image_format.ts";
export { checkDocumentNotBlocked } from "./request/blocking.ts";
export { targetLogFields } from "./request/log_target.ts";
export * from "./types.ts";
export { requireAnnoyances, requireEngine } from "./page/adblock.ts";
