/**
 * The egress proxy's listener for remote browsers on 127.0.0.1 (port 0), for tests: public.test
 * resolves to a fake public address, every other name to loopback (so it is refused), and the dial
 * seam sends the fake public address to the loopback "internet" server. The seam runs only after
 * the check, and records every address it is asked to dial.
 */
import { createFleetProxy, type FleetProxy } from "../lib/egress/fleet_proxy.ts";
import type { Logger } from "../lib/log.ts";
import type { Dialer } from "../lib/egress/policy.ts";

export const PUBLIC_IP = "93.184.215.14";

/** The listener plus the addresses dialed so far. */
export function loopbackFleetProxy(
  options: { internetPort: number; log: Logger },
): { proxy: FleetProxy; dialed: string[] } {
  const dialed: string[] = [];
  const proxy = createFleetProxy({
    listen: { hostname: "127.0.0.1", port: 0 },
    policy: {
      resolver: (host) => Promise.resolve(host === "public.test" ? [PUBLIC_IP] : ["127.0.0.1"]),
      allowPrivateNetwork: false,
      connectTimeoutMs: 2_000,
      dial: (address, _port, signal) => {
        dialed.push(address);
        if (address !== PUBLIC_IP) throw new Deno.errors.ConnectionRefused("not the internet");
        return Deno.connect({ hostname: "127.0.0.1", port: options.internetPort, signal });
      },
    },
    log: options.log,
  });
  return { proxy, dialed };
}

/**
 * A dial seam for a capturer's own egress proxy: the fake public address goes to the loopback
 * server on the same port, anything else is refused (and recorded in `dialed`).
 */
export function publicOnLoopback(dialed: string[] = []): Dialer {
  return (address, port, signal) => {
    dialed.push(address);
    if (address !== PUBLIC_IP) {
      return Promise.reject(new Deno.errors.ConnectionRefused("not the internet"));
    }
    return Deno.connect({ hostname: "127.0.0.1", port, signal });
  };
}
