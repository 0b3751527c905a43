import { z } from "zod";

/** Boolean variables accept the usual spellings; anything else is a start-up error. */
const booleanFlag = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) =>
  v === "true" || v === "1" || v === "yes"
);

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const httpUrl = z.url({ protocol: /^https?$/ });

const ConfigSchema = z.object({
  PORT: integer(0, 65535).default(8000),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_BASE_URL: httpUrl.transform((u) => u.replace(/\/+$/, "")).optional(),
  KV_PATH: z.string().min(1).optional(),
  UPSTASH_REDIS_REST_URL: httpUrl.optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  CACHE_TTL_SECONDS: integer(1, 60 * 60 * 24 * 365).default(172800),
  RATE_LIMIT_PER_MINUTE: integer(1, 100_000).default(20),
  TRUST_PROXY_HOPS: integer(0, 32).default(0),
  CHROME_PATH: z.string().min(1).optional(),
  BROWSER_WS_ENDPOINT: z.string().min(1).transform((v, ctx) => {
    const endpoints = v.split(",").map((s) => s.trim()).filter(Boolean);
    for (const endpoint of endpoints) {
      if (!/^wss?:\/\/[^\s]+$/.test(endpoint)) {
        ctx.addIssue({ code: "custom", message: `"${endpoint}" is not a ws:// or wss:// URL` });
      }
    }
    return endpoints;
  }).optional(),
  // Two pages at once saturate two cores (README, Performance); more only queues inside Chromium.
  MAX_CONCURRENT_CAPTURES: integer(1, 64).default(2),
  CAPTURE_TIMEOUT_MS: integer(1000, 120_000).default(15000),
  ALLOW_PRIVATE_NETWORK: booleanFlag.default(false),
  MAX_UPLOAD_BYTES: integer(1024, 1024 * 1024 * 1024).default(26214400),
  // A healthy client sends even 25 MiB in seconds; a trickling one must not hold an export place.
  UPLOAD_TIMEOUT_MS: integer(100, 600_000).default(30000),
  CACHE_ADMIN_TOKEN: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

/** The validated environment, with the names of the README's Configuration table. */
export type Config = z.output<typeof ConfigSchema>;

/** A start-up failure that names every malformed variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
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
        return `${name}=${JSON.stringify(present[name] ?? "")}: ${issue.message}`;
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
  return config;
}
