/**
 * The operator's own deny ranges (EGRESS_DENY_CIDRS): CIDR blocks, IPv4 or IPv6, judged on top
 * of the built-in classes of address.ts.
 */
import { embeddedIpv4, parseIpv4, parseIpv6, prefixMatches } from "./address.ts";

/** One parsed block: the network's bytes (4 or 16) and its prefix length. */
export interface Cidr {
  readonly text: string;
  readonly bytes: readonly number[];
  readonly bits: number;
}

/** Parses `10.0.0.0/8` or `2001:db8::/32`; a bare address is a /32 or /128. Null if malformed. */
export function parseCidr(text: string): Cidr | null {
  const [address, prefix, extra] = text.trim().split("/");
  if (extra !== undefined || address === undefined) return null;
  const bytes = parseIpv4(address) ?? parseIpv6(address);
  if (!bytes) return null;
  const max = bytes.length * 8;
  if (prefix !== undefined && !/^(0|[1-9][0-9]{0,2})$/.test(prefix)) return null;
  const bits = prefix === undefined ? max : Number(prefix);
  if (bits > max) return null;
  return { text: `${address}/${bits}`, bytes, bits };
}

/** Splits a comma-separated list; the malformed entries are returned instead, to be reported. */
export function parseCidrList(text: string): { cidrs: Cidr[] } | { invalid: string[] } {
  const entries = text.split(",").map((s) => s.trim()).filter(Boolean);
  const cidrs = entries.map(parseCidr);
  const invalid = entries.filter((_, i) => cidrs[i] === null);
  return invalid.length > 0 ? { invalid } : { cidrs: cidrs as Cidr[] };
}

/** True when `address` (or the IPv4 an IPv6 form carries) falls in one of `cidrs`. */
export function deniedByCidrs(address: string, cidrs: readonly Cidr[]): boolean {
  if (cidrs.length === 0) return false;
  const v4 = parseIpv4(address);
  const v6 = v4 ? null : parseIpv6(address);
  const candidates = v4 ? [v4] : v6 ? [v6, ...(embeddedIpv4(v6) ?? [])] : [];
  return candidates.some((bytes) =>
    cidrs.some((cidr) =>
      cidr.bytes.length === bytes.length && prefixMatches(bytes, cidr.bytes, cidr.bits)
    )
  );
}
