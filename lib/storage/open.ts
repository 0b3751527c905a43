/** Picks the object storage for results: the S3 bucket when configured, else the store spill. */
import { captureLinksOf } from "../capture/links.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { S3Settings } from "./s3.ts";
import { createStoreSpill } from "./spill.ts";
import type { ObjectStorage } from "./types.ts";

/** The S3 settings of `config`, or null when S3 is not configured (parseConfig ensured all-or-none). */
export function s3SettingsOf(config: Config): S3Settings | null {
  const { S3_ENDPOINT, S3_REGION, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = config;
  if (!S3_ENDPOINT || !S3_REGION || !S3_BUCKET || !S3_ACCESS_KEY_ID || !S3_SECRET_ACCESS_KEY) {
    return null;
  }
  return {
    endpoint: S3_ENDPOINT,
    region: S3_REGION,
    bucket: S3_BUCKET,
    accessKeyId: S3_ACCESS_KEY_ID,
    secretAccessKey: S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    prefix: config.S3_PREFIX,
    publicBaseUrl: config.S3_PUBLIC_BASE_URL,
  };
}

/**
 * The object storage `config` asks for: S3 when the S3_* variables are set, else results spill
 * into `store` as capture links. Logs which, once (no credentials: the endpoint's host only).
 */
export function createObjectStorage(
  deps: { config: Config; store: Store; clock: Clock; log: Logger },
): ObjectStorage {
  const { config, store, clock, log } = deps;
  const settings = s3SettingsOf(config);
  if (settings) {
    log.info("object storage", {
      kind: "s3",
      endpoint: new URL(settings.endpoint).host,
      bucket: settings.bucket,
      prefix: settings.prefix,
      urls: settings.publicBaseUrl ? "public" : "presigned",
    });
    return lazyS3Storage(settings, clock);
  }
  // Results outlive their job's record at least: whichever of the two lifetimes is longer.
  const seconds = Math.max(config.CAPTURE_LINK_TTL_SECONDS, config.JOB_TTL_SECONDS);
  log.info("object storage", { kind: "store", ttlSeconds: seconds });
  const links = captureLinksOf({ store, clock, config: { CAPTURE_LINK_TTL_SECONDS: seconds } });
  return createStoreSpill({ store, links, ttlMs: seconds * 1000 });
}

/**
 * The S3 backend, its module (and the AWS SDK, which reads AWS_* variables as it loads) loaded
 * on first use: an instance without a bucket never loads it, so it starts under Deno Deploy's
 * narrow env permissions.
 */
function lazyS3Storage(settings: S3Settings, clock: Clock): ObjectStorage {
  let opened: Promise<ObjectStorage> | undefined;
  const s3 = () =>
    opened ??= import("./s3.ts").then(({ createS3Storage }) =>
      createS3Storage({ settings, clock })
    );
  return {
    kind: "s3",
    put: async (key, bytes, meta) => await (await s3()).put(key, bytes, meta),
    get: async (key) => await (await s3()).get(key),
    delete: async (key) => await (await s3()).delete(key),
    urlFor: async (key, options) => await (await s3()).urlFor(key, options),
    check: async () => await (await s3()).check(),
    async close() {
      if (opened) await (await opened).close();
    },
  };
}
