/**
 * The capture capability as the HTTP layer sees it: what a request may ask for (options, their
 * limits and canonical form, the accepted URLs), the contract of the backends, and the few
 * helpers a route needs. Routes import capture from here only; everything else in
 * lib/capture/ is the capability's own business.
 */
export * from "./request/options.ts";
export { parseTargetUrl } from "./request/target_url.ts";
export { targetLogFields } from "./request/log_target.ts";
export * from "./types.ts";
export { requireEngine } from "./page/adblock.ts";
