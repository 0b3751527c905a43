import { parseConfig } from "../config.ts";
import { RATE_WINDOW_MS } from "../http/rate_limit.ts";
import { JOBS_BODY_LIMIT, MAX_JOB_ITEMS } from "../jobs/service.ts";
import { MAX_REDIRECTS } from "../media/proxy.ts";
import { mediaHostList } from "../upstreams.ts";
import type { HeaderRef, OperationRef, ReferenceConfig, Text } from "./reference_types.ts";

// Parsing no variables gives the defaults, so the pages can say what an operator may change.
const DEFAULTS = parseConfig({});

/** The limits of the operations this document has, stated from the constants that set them. */
export function limitsOf(operations: OperationRef[], config: ReferenceConfig): Text[] {
  const limits: Record<string, Text> = {
    captureScreenshot: `at most ${config.RATE_LIMIT_PER_MINUTE} captures per client IP in a ` +
      `sliding ${RATE_WINDOW_MS / 1000} s window (${DEFAULTS.RATE_LIMIT_PER_MINUTE} by default; ` +
      "cache hits count). Past it: 429 `rate_limited` with a `RateLimitError` body whose " +
      "`retryAfter` equals the `Retry-After` header. Wait that long before retrying.",
    submitCaptureJob: `1 to ${MAX_JOB_ITEMS} requests a job. Each item counts against the ` +
      "per-IP capture limit as it starts: a job past the allowance is paced, not refused. At " +
      `most ${config.JOB_MAX_QUEUED_PER_IP} items of one IP queued or running ` +
      `(${DEFAULTS.JOB_MAX_QUEUED_PER_IP} by default): past it 429 \`rate_limited\` with ` +
      "`Retry-After`. The body may be up to " +
      `${bytes(JOBS_BODY_LIMIT)} (413 past it). A job and its results are deleted after ` +
      `${config.JOB_TTL_SECONDS} s.`,
    renderLink: `the same per-IP limit as captures, counted only for links that must be ` +
      "rendered: a capture the cache holds is answered without counting.",
    optimizeExportImage: `bounded by the upload size (${bytes(config.MAX_UPLOAD_BYTES)}; 413 ` +
      "past it) and processing time.",
    proxySocialImage: `only https URLs on ${mediaHostList("or")} (403 otherwise); redirects ` +
      `are followed at most ${MAX_REDIRECTS} times, each within the same hosts.`,
  };
  return operations.filter((op) => limits[op.id])
    .map((op) => `\`${op.method} ${op.path}\`: ${limits[op.id]}`);
}

/** The headers of every 429 answer, with the statuses of the same operation that carry them. */
export function rateLimitHeadersOf(operations: OperationRef[]): HeaderRef[] {
  const headers = new Map<string, HeaderRef>();
  for (const op of operations) {
    const limited = op.responses.find((r) => r.status === "429");
    for (const { name, description } of limited?.headers ?? []) {
      const statuses = op.responses.filter((r) => r.headers.some((h) => h.name === name))
        .map((r) => r.status);
      // Several operations are limited (captures, jobs): a header is sent with any of theirs.
      const known = headers.get(name);
      const all = [...new Set([...known?.statuses ?? [], ...statuses])].sort();
      headers.set(name, { name, description: known?.description ?? description, statuses: all });
    }
  }
  return [...headers.values()];
}

function bytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / 1024 / 1024} MiB` : `${n} bytes`;
}
