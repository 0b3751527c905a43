import { isIPv4, isIPv6 } from "node:net";

/**
 * The client address per TRUST_PROXY_HOPS: 0 trusts only the socket peer; N trusts the N-th
 * X-Forwarded-For entry from the right (each trusted proxy appends the address it saw).
 */
export function resolveClientIp(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trustedHops: number,
): string {
  if (trustedHops > 0 && forwardedFor) {
    const entries = forwardedFor.split(",").map((s) => s.trim()).filter(Boolean);
    const candidate = entries[entries.length - trustedHops];
    if (candidate) {
      const ip = stripPortAndBrackets(candidate);
      if (isIPv4(ip) || isIPv6(ip)) return canonicalIp(ip);
    }
  }
  return canonicalIp(peer ?? "unknown");
}

function stripPortAndBrackets(value: string): string {
  const bracketed = value.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (bracketed) return bracketed[1];
  const v4WithPort = value.match(/^(\d+\.\d+\.\d+\.\d+):\d+$/);
  return v4WithPort ? v4WithPort[1] : value;
}

/** IPv4-mapped IPv6 (::ffff:1.2.3.4) is the IPv4 client it carries. */
export function canonicalIp(ip: string): string {
  const mapped = ip.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i);
  return (mapped ? mapped[1] : ip).toLowerCase();
}

/**
 * The rate-limit bucket of an address: IPv4 as is, IPv6 by its /64, since one subscriber
 * usually holds a whole /64 and could otherwise rotate addresses for free.
 */
export function rateLimitBucket(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const groups = expandIPv6(ip);
  return `${groups.slice(0, 4).join(":")}::/64`;
}

function expandIPv6(address: string): string[] {
  // An embedded IPv4 tail (64:ff9b::1.2.3.4) stands for the last two groups.
  const ip = address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_m, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`,
  );
  const [head, tail = ""] = ip.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = ip.includes("::") && tail ? tail.split(":") : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = ip.includes("::")
    ? [...headGroups, ...Array(missing).fill("0"), ...tailGroups]
    : headGroups;
  return groups.map((g) => g.padStart(4, "0").toLowerCase());
}
