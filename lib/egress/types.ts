/**
 * What the rest of the service reads of the network boundary: the header that marks the
 * proxy's own answers, why a destination was refused, and what a capture's session exposes.
 * Page code imports these, never the proxy's internals.
 */

/**
 * Header the proxy puts on its own answers, so they are never taken for the target's. A page
 * can read it (and the status) on same-origin requests, so every refusal looks the same: the
 * reason and the address stay in this process, or a page could map our network with it.
 */
export const EGRESS_MARKER_HEADER = "X-Shotline-Egress";

/** Why the proxy did not connect a destination; the capturer turns it into the API error. */
export interface EgressRefusal {
  host: string;
  port: number;
  kind: "forbidden_address" | "unresolvable" | "dns_failed" | "connect_failed";
  /** The address class ("loopback"...) or what the connection attempt ran into. */
  detail: string;
}

/** What page code reads of a capture's session: the destinations refused so far, oldest first. */
export interface RefusalLog {
  readonly refusals: readonly EgressRefusal[];
}

/** A destination the boundary refused, thrown as itself: the capture maps it to the API's answer. */
export class RefusedDestination extends Error {
  constructor(readonly refusal: EgressRefusal) {
    super(`egress refused ${refusal.host}:${refusal.port} (${refusal.kind})`);
    this.name = "RefusedDestination";
  }
}
