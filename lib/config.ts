import { z } from "zod";
import { type Cidr, parseCidrList } from "./egress/cidr.ts";
import { secretKeyBytes } from "./webhooks/signature.ts";

/** Boolean variables accept the usual spellings; anything else is a start-up error. */
const booleanFlag = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) =>
  v === "true" || v === "1" || v === "yes"
);

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const httpUrl = z.url({ protocol: /^https?$/ });

// The public EasyList (ads) and EasyPrivacy (trackers) lists.
const DEFAULT_ADBLOCK_LISTS = "https://easylist.to/easylist/easylist.txt," +
  "https://easylist.to/easylist/easyprivacy.txt";

// Fanboy's Annoyance List (EasyList's maintainers): chat widgets, newsletter and notification
// pop-ups, social overlays, cookie notices.
const DEFAULT_ANNOYANCE_LISTS = "https://easylist.to/easylist/fanboy-annoyance.txt";

/** A comma-separated list of http(s) URLs. */
function urlList(fallback: string) {
  return z.string().min(1).default(fallback).transform((v, ctx) => {
    const urls = v.split(",").map((s) => s.trim()).filter(Boolean);
    for (const url of urls) {
      if (!httpUrl.safeParse(url).success) {
        ctx.addIssue({ code: "custom", message: `"${url}" is not an http or https URL` });
      }
    }
    return urls;
  });
}

const ConfigSchema = z.object({
  PORT: integer(0, 65535).default(8000),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_BASE_URL: httpUrl.transform((u) => u.replace(/\/+$/, "")).optional(),
  KV_PATH: z.string().min(1).optional(),
  UPSTASH_REDIS_REST_URL: httpUrl.optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  CACHE_TTL_SECONDS: integer(1, 60 * 60 * 24 * 365).default(172800),
  // How long the link to a capture an MCP tool answered works: at least a minute for an agent to
  // follow it, at most a week, since anyone holding the link may read the capture until then.
  CAPTURE_LINK_TTL_SECONDS: integer(60, 60 * 60 * 24 * 7).default(3600),
  RATE_LIMIT_PER_MINUTE: integer(1, 100_000).default(20),
  TRUST_PROXY_HOPS: integer(0, 32).default(0),
  CHROME_PATH: z.string().min(1).optional(),
  // Recordings (mp4, webm, gif) are encoded by ffmpeg; without it they answer 503 naming it.
  FFMPEG_PATH: z.string().min(1).default("ffmpeg"),
  BROWSER_WS_ENDPOINT: z.string().min(1).transform((v, ctx) => {
    const endpoints = v.split(",").map((s) => s.trim()).filter(Boolean);
    for (const [i, endpoint] of endpoints.entries()) {
      // The entry itself is never quoted: its path or query may carry the fleet's token.
      if (!/^wss?:\/\/[^\s]+$/.test(endpoint)) {
        ctx.addIssue({ code: "custom", message: `entry ${i + 1} is not a ws:// or wss:// URL` });
      }
    }
    return endpoints;
  }).optional(),
  // Two pages at once saturate two cores (bench/README.md); more only queues inside Chromium.
  MAX_CONCURRENT_CAPTURES: integer(1, 64).default(2),
  CAPTURE_TIMEOUT_MS: integer(1000, 120_000).default(15000),
  ALLOW_PRIVATE_NETWORK: booleanFlag.default(false),
  MAX_UPLOAD_BYTES: integer(1024, 1024 * 1024 * 1024).default(26214400),
  // A healthy client sends even 25 MiB in seconds; a trickling one must not hold an export place.
  UPLOAD_TIMEOUT_MS: integer(100, 600_000).default(30000),
  // Shorter tokens can be guessed online, failed-attempt throttling or not.
  CACHE_ADMIN_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  // Signs GET /api/render links; unset, the route does not exist. As long as a token: a short
  // key could be found offline from any one link.
  RENDER_LINK_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  EGRESS_DENY_CIDRS: z.string().transform((v, ctx): Cidr[] => {
    const parsed = parseCidrList(v);
    if ("cidrs" in parsed) return parsed.cidrs;
    ctx.addIssue({ code: "custom", message: `not a CIDR: ${parsed.invalid.join(", ")}` });
    return [];
  }).default([]),
  // 64 MiB: far above any real page, small enough that one capture cannot fill a disk or a link.
  CAPTURE_BYTE_BUDGET: integer(1024 * 1024, 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  // Enables GET /metrics (bearer token); unset, the endpoint does not exist.
  METRICS_TOKEN: z.string().min(1).optional(),
  // Where this instance's egress proxy also listens for the remote browsers (host:port).
  EGRESS_PROXY_LISTEN: z.string().transform((v, ctx) => {
    const listen = parseListen(v);
    if (!listen) ctx.addIssue({ code: "custom", message: "expected host:port, e.g. 0.0.0.0:8118" });
    return listen ?? { hostname: "", port: 0 };
  }).optional(),
  // The address at which the remote browsers reach that listener: a plain http:// proxy URL.
  EGRESS_PROXY_URL: z.string().regex(
    /^http:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}\/?$/,
    "expected http://host:port (no credentials or path)",
  ).refine(
    (v) => parseListen(v.replace(/^http:\/\//, "").replace(/\/$/, "")) !== null,
    "the port must be 1 to 65535",
  ).transform((v) => v.replace(/\/$/, "")).optional(),
  ADBLOCK_LIST_URLS: urlList(DEFAULT_ADBLOCK_LISTS),
  ANNOYANCE_LIST_URLS: urlList(DEFAULT_ANNOYANCE_LISTS),
  // Origins whose pages may call /mcp besides the service's own ("*" for any).
  MCP_ALLOWED_ORIGINS: z.string().transform((v, ctx) => {
    const origins = v.split(",").map((s) => s.trim()).filter(Boolean);
    for (const origin of origins) {
      if (origin !== "*" && !isOrigin(origin)) {
        ctx.addIssue({
          code: "custom",
          message: `"${origin}" is not an origin (scheme://host[:port])`,
        });
      }
    }
    return origins;
  }).default([]),
  // What a model reads well in one image: the MCP capture tool's overview and tiles (per call too).
  MCP_IMAGE_MAX_SIDE: integer(256, 8000).default(1568),
  MCP_IMAGE_MAX_PIXELS: integer(65_536, 64_000_000).default(1_150_000),
  // Tiles one capture_screenshot answer carries at most; the agent asks for the rest.
  MCP_MAX_TILES: integer(1, 200).default(24),
  // Object storage for results (docs/storage.md#object-storage-for-results): the first five are
  // set all together or not at all; without them, results are kept in the store (capture links).
  S3_ENDPOINT: httpUrl.optional(),
  S3_REGION: z.string().min(1).optional(),
  S3_BUCKET: z.string().min(1).optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  // MinIO and most self-hosted servers want bucket-in-path URLs; AWS prefers virtual hosts.
  S3_FORCE_PATH_STYLE: booleanFlag.default(false),
  // Every key is written under it, so one lifecycle rule on the prefix expires what we wrote.
  S3_PREFIX: z.string().regex(/^[^/]/, "must not start with /").default(""),
  // A public bucket or CDN in front of it: URLs are this + the key, unsigned.
  S3_PUBLIC_BASE_URL: httpUrl.transform((u) => u.replace(/\/+$/, "")).optional(),
  // Signs webhooks (docs/jobs.md): a guessable key would let anyone forge a delivery.
  WEBHOOK_SECRET: z.string().refine(
    (v) => secretKeyBytes(v) !== null,
    "expected whsec_ followed by the base64 of 24 to 64 random bytes",
  ).optional(),
  // How long a job's status and results are kept after it was submitted (docs/jobs.md).
  JOB_TTL_SECONDS: integer(600, 60 * 60 * 24 * 7).default(86400),
  // Runs of one item at most: a killed instance's item is tried again up to this many times.
  JOB_ITEM_MAX_TRIES: integer(1, 10).default(3),
  // Items one client IP may have queued or running across its jobs; a job past it is refused.
  JOB_MAX_QUEUED_PER_IP: integer(1, 100_000).default(500),
  // Job items run at once on one instance; unset, MAX_CONCURRENT_CAPTURES + 2.
  JOB_CONCURRENCY: integer(1, 64).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

/** Whether `value` is exactly an http(s) origin: no path, query or credentials. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) && url.origin === value.replace(/\/$/, "").toLowerCase();
  } catch {
    return false;
  }
}

/** Every variable parseConfig reads (main.ts reads them one by one when env access is partial). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(ConfigSchema.shape);

/** The validated environment, with the names of the Configuration table (docs/configuration.md). */
export type Config = z.output<typeof ConfigSchema>;

/** A start-up failure that names every malformed variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

// Values never printed in a start-up error: tokens, and endpoints whose URL may carry one.
const SECRET_VARIABLES = /TOKEN|SECRET|PASSWORD|^BROWSER_WS_ENDPOINT$|^UPSTASH_REDIS_REST_URL$/;

/** How a malformed value is quoted in an error: secrets only by their length. */
function shownValue(name: string, value: string | undefined): string {
  if (value === undefined) return '""';
  return SECRET_VARIABLES.test(name)
    ? `<hidden, ${value.length} characters>`
    : JSON.stringify(value);
}

/** Parses the environment once; empty strings count as unset so `FOO=` means default. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(
    Object.keys(ConfigSchema.shape).map((name) => [name, env[name] === "" ? undefined : env[name]]),
  );
  const result = ConfigSchema.safeParse(present);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? "config");
        return `${name}=${shownValue(name, present[name])}: ${issue.message}`;
      }),
    );
  }
  const config = result.data;
  const redisVars = [config.UPSTASH_REDIS_REST_URL, config.UPSTASH_REDIS_REST_TOKEN];
  if (redisVars.filter(Boolean).length === 1) {
    throw new ConfigError([
      "UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together",
    ]);
  }
  if (Boolean(config.EGRESS_PROXY_LISTEN) !== Boolean(config.EGRESS_PROXY_URL)) {
    throw new ConfigError(["EGRESS_PROXY_LISTEN and EGRESS_PROXY_URL must be set together"]);
  }
  const s3Problems = s3ProblemsOf(present);
  if (s3Problems.length > 0) throw new ConfigError(s3Problems);
  return config;
}

/** The S3 variables without which object storage cannot be used: all of them, or none. */
export const S3_REQUIRED_VARIABLES = [
  "S3_ENDPOINT",
  "S3_REGION",
  "S3_BUCKET",
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
] as const;

const S3_OPTIONAL_VARIABLES = ["S3_FORCE_PATH_STYLE", "S3_PREFIX", "S3_PUBLIC_BASE_URL"];

/**
 * A partial S3 set would silently fall back to the store, so it names what is missing; so does an
 * optional S3 variable set without the required ones (it would have no effect).
 */
function s3ProblemsOf(present: Record<string, string | undefined>): string[] {
  const missing = S3_REQUIRED_VARIABLES.filter((name) => present[name] === undefined);
  if (missing.length > 0 && missing.length < S3_REQUIRED_VARIABLES.length) {
    return [
      `S3 object storage is partly configured: missing ${missing.join(", ")} ` +
      `(set all of ${S3_REQUIRED_VARIABLES.join(", ")}, or none)`,
    ];
  }
  const stray = S3_OPTIONAL_VARIABLES.filter((name) => present[name] !== undefined);
  if (missing.length > 0 && stray.length > 0) {
    return [
      `${stray.join(", ")} set without S3 object storage (set ${S3_REQUIRED_VARIABLES.join(", ")})`,
    ];
  }
  return [];
}

/** `host:port` or `[v6]:port` to what Deno.listen takes; null when malformed. */
function parseListen(value: string): { hostname: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) return null;
  return { hostname: match[1].replace(/^\[|\]$/g, ""), port };
}

/**
 * The environment from `source` (Deno.env, passed in by main.ts), or, without full --allow-env,
 * each variable of the Configuration table we may read; denied ones count as unset.
 */
export function readEnvironment(
  source: Pick<Deno.Env, "toObject" | "get">,
): { env: Record<string, string>; denied: string[] } {
  try {
    return { env: source.toObject(), denied: [] };
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
  }
  const env: Record<string, string> = {};
  const denied: string[] = [];
  for (const name of CONFIG_VARIABLES) {
    try {
      const value = source.get(name);
      if (value !== undefined) env[name] = value;
    } catch {
      denied.push(name);
    }
  }
  return { env, denied };
}
