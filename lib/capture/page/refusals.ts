/**
 * Which refusal of the egress boundary explains a failed navigation: the answer the proxy wrote
 * itself for a refused destination, or a refused host the main frame navigated to (redirect hops
 * included). The render turns either into a RefusedDestination, never a picture of an error.
 */
import type { NetworkTracker } from "./network.ts";
import {
  EGRESS_MARKER_HEADER,
  type EgressRefusal,
  type RefusalLog,
  RefusedDestination,
} from "../../egress/types.ts";
import { unbracket } from "../../egress/address.ts";

/** An answer the egress proxy wrote itself (refused destination) is an error, not a page. */
export function rejectProxyAnswer(
  network: NetworkTracker,
  session: RefusalLog,
): void {
  // puppeteer gives header names in lower case.
  if (!network.mainResponse?.headers()[EGRESS_MARKER_HEADER.toLowerCase()]) return;
  const refusal = navigationRefusal(network, session);
  if (refusal) throw new RefusedDestination(refusal);
}

// puppeteer may deliver a redirect hop's request event after the navigation's failure. The hop's
// own failure event comes after its request event, so that is what is waited for; the bound only
// matters when no failure event comes at all (a busy machine can take well over 100 ms).
const HOP_EVENT_BOUND_MS = 2_000;

/** navigationRefusal, once the failed navigation's events (redirect hops included) are in. */
export async function awaitNavigationRefusal(
  network: NetworkTracker,
  session: RefusalLog,
): Promise<EgressRefusal | undefined> {
  const until = performance.now() + HOP_EVENT_BOUND_MS;
  let refusal = navigationRefusal(network, session);
  // Only while some refusal is still unexplained: otherwise there is nothing to wait for.
  while (
    !refusal && session.refusals.length > 0 && !network.navigationFailed &&
    performance.now() < until
  ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    refusal = navigationRefusal(network, session);
  }
  return refusal;
}

/**
 * The latest refusal of a host the main frame navigated to (redirect hops included). Refusals
 * of other hosts do not explain a failed navigation: some Chromium versions send their own
 * background requests through the capture's proxy, and those are refused too.
 */
function navigationRefusal(
  network: NetworkTracker,
  session: RefusalLog,
): EgressRefusal | undefined {
  return session.refusals.findLast((r) => network.navigationHosts.has(unbracket(r.host)));
}
