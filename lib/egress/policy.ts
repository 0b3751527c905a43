/**
 * The decision of the egress proxy: resolve a destination, judge every address, and open the
 * TCP connection only to an address that was judged (no second lookup, no rebinding window).
 */
import {
  type AddressClass,
  forbiddenReason,
  isIpLiteral,
  type Resolver,
  unbracket,
} from "./address.ts";
import { abortAfter } from "../timeout.ts";
import { type Cidr, deniedByCidrs } from "./cidr.ts";
import type { EgressRefusal } from "./types.ts";

/** Opens the TCP connection to an address that already passed the check. */
export type Dialer = (address: string, port: number, signal: AbortSignal) => Promise<Deno.Conn>;

export interface EgressPolicy {
  resolver: Resolver;
  allowPrivateNetwork: boolean;
  /** EGRESS_DENY_CIDRS: the operator's own ranges, refused even with ALLOW_PRIVATE_NETWORK. */
  denyCidrs?: readonly Cidr[];
  /**
   * Test seam: where the connection to a checked address is opened. Production uses
   * `Deno.connect` to the address itself; tests map fake public addresses to loopback servers.
   * It is only ever called after the check, so it cannot widen what is allowed.
   */
  dial?: Dialer;
  /** Budget for one TCP connect. */
  connectTimeoutMs: number;
}

export type Checked =
  | { ok: true; addresses: string[] }
  | { ok: false; refusal: EgressRefusal };

/** Resolves `host` and judges each address; a name with any forbidden address is refused. */
export async function checkDestination(
  host: string,
  port: number,
  policy: EgressPolicy,
): Promise<Checked> {
  const refuse = (kind: EgressRefusal["kind"], detail: string): Checked => ({
    ok: false,
    refusal: { host, port, kind, detail },
  });
  let addresses: string[];
  if (isIpLiteral(host)) addresses = [unbracket(host)];
  else {
    try {
      addresses = await policy.resolver(host);
    } catch (error) {
      return refuse("dns_failed", error instanceof Error ? error.message : String(error));
    }
    if (addresses.length === 0) return refuse("unresolvable", "no A or AAAA records");
  }
  // Judge them all: an attacker's name may mix a public address with a private one, and which
  // one a client picks must not decide whether the boundary holds.
  const judge = (address: string): AddressClass | null =>
    deniedByCidrs(address, policy.denyCidrs ?? [])
      ? "operator-denied"
      : policy.allowPrivateNetwork
      ? null
      : forbiddenReason(address);
  const reasons = addresses.map(judge).filter((r): r is AddressClass => r !== null);
  if (reasons.length > 0) return refuse("forbidden_address", reasons[0]);
  return { ok: true, addresses };
}

/** Connects to the first checked address that answers, each attempt bounded by the timeout. */
export async function dialChecked(
  host: string,
  port: number,
  addresses: string[],
  policy: EgressPolicy,
): Promise<{ ok: true; conn: Deno.Conn } | { ok: false; refusal: EgressRefusal }> {
  const dial = policy.dial ?? dialDirect;
  let detail = "no address to connect to";
  for (const address of addresses) {
    // A silent host (dropped SYNs) must not hold the capture until the OS gives up (minutes).
    using deadline = abortAfter(
      policy.connectTimeoutMs,
      new Deno.errors.TimedOut("connect timed out"),
    );
    try {
      return { ok: true, conn: await dial(address, port, deadline.signal) };
    } catch (error) {
      detail = describeConnectError(error, deadline.signal.aborted);
    }
  }
  return { ok: false, refusal: { host, port, kind: "connect_failed", detail } };
}

function dialDirect(address: string, port: number, signal: AbortSignal): Promise<Deno.Conn> {
  // Connect by the checked IP literal: Deno does no lookup of its own here.
  return Deno.connect({ hostname: address, port, signal });
}

function describeConnectError(error: unknown, timedOut: boolean): string {
  if (timedOut || error instanceof Deno.errors.TimedOut) return "connection timed out";
  if (error instanceof Deno.errors.ConnectionRefused) return "connection refused";
  if (error instanceof Deno.errors.ConnectionReset) return "connection reset";
  if (error instanceof Error && /unreachable/i.test(error.message)) return "host unreachable";
  return "connection failed";
}
