/**
 * Which IP addresses a capture may reach. Default deny: an address the parser cannot read, or
 * one outside the ranges the public internet routes, is refused.
 */

/** Why an address is refused; `null` from `forbiddenReason` means it is public. */
export type AddressClass =
  | "unparseable"
  | "unspecified"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "documentation"
  | "benchmarking"
  | "cloud-metadata"
  | "cloud-internal"
  | "operator-denied"
  | "unique-local"
  | "site-local"
  | "nat64-local";

/** Looks a host name up; returns every A and AAAA address, or [] when the name does not exist. */
export type Resolver = (hostname: string) => Promise<string[]>;

// A lookup that hangs must not hold a capture past its budget: 5 s is generous for DNS.
const DNS_TIMEOUT_MS = 5_000;

/** The default resolver: `Deno.resolveDns` A + AAAA; "localhost" names are loopback (RFC 6761). */
export async function resolveWithDns(hostname: string): Promise<string[]> {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  // resolveDns does not read /etc/hosts; RFC 6761 fixes these names to loopback anyway.
  if (name === "localhost" || name.endsWith(".localhost")) return ["127.0.0.1", "::1"];
  const signal = AbortSignal.timeout(DNS_TIMEOUT_MS);
  const lookups = await Promise.allSettled([
    Deno.resolveDns(name, "A", { signal }),
    Deno.resolveDns(name, "AAAA", { signal }),
  ]);
  const addresses = lookups.flatMap((r) => r.status === "fulfilled" ? r.value : []);
  if (addresses.length > 0) return addresses;
  const failure = lookups.find((r) =>
    r.status === "rejected" && !(r.reason instanceof Deno.errors.NotFound)
  );
  // NXDOMAIN / no records is "does not resolve"; a timeout or SERVFAIL is a lookup failure.
  if (failure && failure.status === "rejected") throw failure.reason;
  return [];
}

/** The class that forbids `address` (IPv4 dotted quad or IPv6), or null when it is public. */
export function forbiddenReason(address: string): AddressClass | null {
  const v4 = parseIpv4(address);
  if (v4) return ipv4Reason(v4);
  const v6 = parseIpv6(address);
  if (v6) return ipv6Reason(v6);
  return "unparseable";
}

/** True for a canonical IP literal (dotted quad, or IPv6 with or without brackets). */
export function isIpLiteral(host: string): boolean {
  return parseIpv4(host) !== null || parseIpv6(unbracket(host)) !== null;
}

/** Strips the brackets of an IPv6 URL host. */
export function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** Strict dotted quad: four decimal octets without leading zeros (no 127.1, no 0x7f...). */
export function parseIpv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const octets = parts.map((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) ? Number(p) : NaN);
  return octets.every((o) => o >= 0 && o <= 255) ? octets : null;
}

/** IPv6 text (with "::" and an optional trailing dotted quad) to 16 bytes; no zone ids. */
export function parseIpv6(text: string): number[] | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.split("::").length > 2) return null;
  let words: number[] = [];
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const toWords = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const groups = part.split(":");
    for (const [i, group] of groups.entries()) {
      if (i === groups.length - 1 && group.includes(".")) {
        const v4 = parseIpv4(group);
        if (!v4) return null;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(group)) out.push(parseInt(group, 16));
      else return null;
    }
    return out;
  };
  const headWords = toWords(tail === undefined ? text : head);
  const tailWords = tail === undefined ? [] : toWords(tail);
  if (!headWords || !tailWords) return null;
  if (tail === undefined) {
    if (headWords.length !== 8) return null;
    words = headWords;
  } else {
    const gap = 8 - headWords.length - tailWords.length;
    if (gap < 1) return null;
    words = [...headWords, ...new Array(gap).fill(0), ...tailWords];
  }
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

const V4_RANGES: [string, number, AddressClass][] = [
  // Metadata endpoints first, so they are reported as such (AWS/GCP/Azure, ECS, Alibaba, Oracle).
  ["169.254.169.254", 32, "cloud-metadata"],
  ["169.254.170.2", 32, "cloud-metadata"],
  ["100.100.100.200", 32, "cloud-metadata"],
  ["192.0.0.192", 32, "cloud-metadata"],
  // Public-looking addresses that only answer inside a cloud network, with the instance's
  // identity: Azure's wire server (DHCP, DNS, health and VM agent channel), and Google's
  // Private Google Access VIPs (private.googleapis.com, restricted.googleapis.com).
  ["168.63.129.16", 32, "cloud-internal"],
  ["199.36.153.4", 30, "cloud-internal"],
  ["199.36.153.8", 30, "cloud-internal"],
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "cgnat"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["255.255.255.255", 32, "broadcast"],
  ["240.0.0.0", 4, "reserved"],
];

function ipv4Reason(octets: number[]): AddressClass | null {
  const value = toUint32(octets);
  for (const [base, bits, reason] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if (((value & mask) >>> 0) === ((toUint32(parseIpv4(base)!) & mask) >>> 0)) return reason;
  }
  return null;
}

const V6_RANGES: [string, number, AddressClass][] = [
  ["fd00:ec2::254", 128, "cloud-metadata"],
  // AWS's Route 53 resolver and time service on the Nitro IPv6 link (inside fc00::/7 anyway).
  ["fd00:ec2::253", 128, "cloud-internal"],
  ["fd00:ec2::123", 128, "cloud-internal"],
  ["64:ff9b:1::", 48, "nat64-local"],
  ["100::", 64, "reserved"],
  ["2001:2::", 48, "benchmarking"],
  ["2001:db8::", 32, "documentation"],
  ["2001:10::", 28, "reserved"],
  ["2001:20::", 28, "reserved"],
  ["3fff::", 20, "documentation"],
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];

function ipv6Reason(bytes: number[]): AddressClass | null {
  const embedded = embeddedIpv4(bytes);
  if (embedded) {
    for (const v4 of embedded) {
      const reason = ipv4Reason(v4);
      if (reason) return reason;
    }
    return null;
  }
  if (bytes.every((b) => b === 0)) return "unspecified";
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return "loopback";
  for (const [base, bits, reason] of V6_RANGES) {
    if (prefixMatches(bytes, parseIpv6(base)!, bits)) return reason;
  }
  // Only 2000::/3 is global unicast today; the rest (deprecated IPv4-compatible ::a.b.c.d
  // included) is reserved.
  return (bytes[0] & 0xe0) === 0x20 ? null : "reserved";
}

/**
 * The IPv4 addresses an IPv6 address carries, judged instead of the IPv6 form: mapped
 * (::ffff:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16), and Teredo
 * (2001::/32: the server and the obfuscated client address).
 */
export function embeddedIpv4(b: number[]): number[][] | null {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const last4 = b.slice(12, 16);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return [last4];
  if (prefixMatches(b, parseIpv6("64:ff9b::")!, 96)) return [last4];
  if (b[0] === 0x20 && b[1] === 0x02) return [b.slice(2, 6)];
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) {
    return [b.slice(4, 8), last4.map((x) => x ^ 0xff)];
  }
  return null;
}

/** True when the first `bits` bits of `bytes` and `base` agree (4-byte or 16-byte forms). */
export function prefixMatches(
  bytes: readonly number[],
  base: readonly number[],
  bits: number,
): boolean {
  for (let i = 0; i < base.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (base[i] & mask)) return false;
  }
  return true;
}

function toUint32(octets: number[]): number {
  return ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
}
