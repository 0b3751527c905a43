/**
 * The capture capability as the HTTP layer sees it: what a request may ask for (options, devices,
 * credentials, their limits and canonical form, the accepted URLs), the contract of the backends,
 * and the few helpers a route needs. Routes import capture from here only; everything else in
 * lib/capture/ is the capability's own business.
 */
import { answering } from "./failures.ts";
import { planCapture as planRequest } from "./request/plan.ts";
import { parseTargetUrl as parseTarget } from "./request/target_url.ts";
import { checkDocumentNotBlocked as checkDocument } from "./request/blocking.ts";
import { requireAnnoyances as annoyanceEngine, requireEngine as adEngine } from "./page/adblock.ts";
import { requireVideoEncoder as videoEncoder } from "./page/take_output.ts";
export * from "./request/options.ts";
export { DEVICE_NAMES, DEVICES } from "./request/devices.ts";
export {
  type Credentials,
  MAX_COOKIE_BYTES,
  MAX_COOKIES,
  MAX_HEADER_BYTES,
  MAX_HEADERS,
} from "./request/credentials.ts";
export type { CaptureRequestFields } from "./request/plan.ts";
export * from "./request/output.ts";
export { targetLogFields } from "./request/log_target.ts";
export { viewportOf } from "./request/viewport.ts";
export * from "./types.ts";
export * from "./report.ts";
export { FAVICON_BUDGET_MS } from "./page/favicon.ts";
export { MAX_ICON_BYTES } from "./page/icon_bytes.ts";
export { typedFailureError } from "./failures.ts";

// What a route calls directly answers with the API's errors: the typed failures of these
// functions are mapped here, at the capability's edge, by the one mapper (failures.ts).
/** The request body as a capture plan; an out-of-bounds field is a 400. */
export const planCapture = answering(planRequest);
/** The normalised target URL; a URL the service does not capture is a 400. */
export const parseTargetUrl = answering(parseTarget);
/** A blockRequests pattern that matches the page itself is a 400. */
export const checkDocumentNotBlocked = answering(checkDocument);
/** The ad filter engine for blockAds; 503 while no list was ever loaded. */
export const requireEngine = answering(adEngine);
/** The annoyance engine for hideAnnoyances; 503 while no list was ever loaded. */
export const requireAnnoyances = answering(annoyanceEngine);
/** ffmpeg with the format's encoder; 503 naming what is missing. */
export const requireVideoEncoder = answering(videoEncoder);
