/**
 * Webhooks leave through the capture boundary (docs/boundary.md): one egress proxy for webhooks,
 * with the service's address rules, whose sessions carry each delivery attempt; and the same
 * rules applied to a webhook URL when a job is submitted, so a forbidden receiver is refused
 * before anything is queued.
 */
import { isIpLiteral, type Resolver, resolveWithDns } from "../egress/address.ts";
import type { Cidr } from "../egress/cidr.ts";
import { checkDestination, type Dialer, type EgressPolicy } from "../egress/policy.ts";
import { createEgressProxy, type EgressProxy } from "../egress/proxy.ts";
import type { Logger } from "../log.ts";
import { InvalidWebhookTarget } from "./types.ts";

/** Bound of one delivery attempt, connect to last byte read: a slow receiver is a failed one. */
export const DELIVERY_TIMEOUT_MS = 10_000;
// A receiver's answer head and the excerpt of its body are all that is read; the rest is cut.
const ATTEMPT_BYTE_BUDGET = 128 * 1024;
// One attempt is one connection (two for https: the tunnel is one); more is not ours.
const ATTEMPT_MAX_CONNECTIONS = 2;
// The same bound as a capture's target URL: far beyond a real one, small enough for logs.
const MAX_URL_LENGTH = 8192;

/** The address rules of the service and the proxy that enforces them for webhooks. */
export interface WebhookBoundary {
  policy: EgressPolicy;
  /** Each delivery attempt opens a session of its own and closes it when it is over. */
  proxy: EgressProxy;
}

export interface WebhookBoundaryOptions {
  /** ALLOW_PRIVATE_NETWORK (development and tests only). */
  allowPrivateNetwork: boolean;
  /** EGRESS_DENY_CIDRS: refused even with ALLOW_PRIVATE_NETWORK. */
  denyCidrs?: readonly Cidr[];
  /** Test seam: the name lookup; DNS unless given. */
  resolver?: Resolver;
  /** Test seam: where a checked address is connected (see EgressPolicy.dial). */
  dial?: Dialer;
  log: Logger;
}

/** Builds the webhooks' egress proxy once (main.ts); it listens only while an attempt runs. */
export function createWebhookBoundary(options: WebhookBoundaryOptions): WebhookBoundary {
  const policy: EgressPolicy = {
    resolver: options.resolver ?? resolveWithDns,
    allowPrivateNetwork: options.allowPrivateNetwork,
    denyCidrs: options.denyCidrs,
    dial: options.dial,
    connectTimeoutMs: DELIVERY_TIMEOUT_MS,
  };
  const proxy = createEgressProxy(policy, options.log, {
    byteBudget: ATTEMPT_BYTE_BUDGET,
    maxConnections: ATTEMPT_MAX_CONNECTIONS,
  });
  return { policy, proxy };
}

/**
 * The webhook URL a job may name, normalised; throws InvalidWebhookTarget unless it is http(s)
 * without credentials and its host resolves to addresses the boundary allows, all of them.
 */
export async function checkWebhookTarget(
  input: string,
  deps: { boundary: WebhookBoundary },
): Promise<URL> {
  const hint = "Send the absolute http:// or https:// URL of a receiver on the public internet.";
  if (input.length > MAX_URL_LENGTH) {
    throw new InvalidWebhookTarget("malformed", "The webhook URL is too long.", hint);
  }
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new InvalidWebhookTarget("malformed", "The webhook URL is not a valid URL.", hint);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidWebhookTarget("scheme", "A webhook URL must be http or https.", hint);
  }
  // Credentials in a URL end up in logs and job views; receivers authenticate by the signature.
  const authority = input.trim().replace(/^https?:\/\//i, "").split(/[/?#\\]/, 1)[0];
  if (url.username || url.password || authority.includes("@")) {
    throw new InvalidWebhookTarget(
      "credentials",
      "A webhook URL must not contain a user name or password.",
      "Remove the user:password@ part; check the webhook-signature header instead.",
    );
  }
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const checked = await checkDestination(url.hostname, port, deps.boundary.policy);
  if (!checked.ok) {
    const { kind } = checked.refusal;
    // The host is the caller's own input; the address and its class stay in this process.
    if (kind === "forbidden_address") {
      const what = isIpLiteral(url.hostname) ? "is" : "resolves to";
      throw new InvalidWebhookTarget(
        "forbidden_address",
        `The webhook host ${what} an address the service does not reach.`,
        "Webhooks go to public addresses only: not loopback, private, link-local or metadata ones.",
      );
    }
    throw new InvalidWebhookTarget(
      kind === "unresolvable" ? "unresolvable" : "dns_failed",
      "The webhook host does not resolve.",
      "Check the host name; it must resolve in public DNS.",
    );
  }
  url.hash = "";
  return url;
}
