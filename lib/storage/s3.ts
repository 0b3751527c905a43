/**
 * Object storage on an S3-compatible bucket (AWS S3, MinIO, R2...), through the official AWS SDK.
 * The endpoint and credentials are the operator's (S3_* variables), never a page's.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { Clock } from "../clock.ts";
import { abortAfter, TimeoutError } from "../timeout.ts";
import {
  checkObjectKey,
  type ObjectStorage,
  ObjectStorageFailed,
  type ObjectUrlOptions,
} from "./types.ts";

/**
 * The bound of one whole call, retries included: a 24 MiB result uploads in a few seconds on any
 * link a bucket sits behind, and a stuck endpoint must not hold a job for ever.
 */
export const S3_CALL_TIMEOUT_MS = 30_000;
// A bucket endpoint that does not even accept the connection in this long is down.
const S3_CONNECT_TIMEOUT_MS = 5_000;
// S3 refuses presigned URLs valid for longer than 7 days.
const MAX_PRESIGNED_SECONDS = 7 * 24 * 60 * 60;

/** Where the bucket is and how to reach it (from the S3_* variables). */
export interface S3Settings {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** Prepended to every key as it is ("results/" makes "results/a.png" of "a.png"). */
  prefix: string;
  /** Unsigned URLs are this + "/" + the prefixed key, when set. */
  publicBaseUrl?: string;
}

// What an operator should check for the errors a misconfigured bucket answers.
const HINTS: Record<string, string> = {
  SignatureDoesNotMatch: "the bucket refused the request signature: check S3_SECRET_ACCESS_KEY",
  InvalidAccessKeyId: "the bucket does not know S3_ACCESS_KEY_ID",
  AccessDenied: "the credentials may not do this on S3_BUCKET",
  Forbidden: "the credentials may not do this on S3_BUCKET (check both S3_ keys)",
  NoSuchBucket: "S3_BUCKET does not exist at S3_ENDPOINT",
  NotFound: "S3_BUCKET does not exist at S3_ENDPOINT",
  TimeoutError: `no answer within ${S3_CALL_TIMEOUT_MS} ms: check S3_ENDPOINT`,
};

/** `error` as an ObjectStorageFailed naming the S3 error and what to check (no secrets in it). */
function failure(
  operation: ObjectStorageFailed["operation"],
  key: string,
  error: unknown,
): ObjectStorageFailed {
  if (error instanceof ObjectStorageFailed) return error;
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  // A HEAD answer has no body, so its error is named by status alone.
  const byStatus = status === 403 ? "Forbidden" : status === 404 ? "NotFound" : undefined;
  const name = error instanceof Error ? error.name : "Error";
  const code = /^(\d+|Unknown|UnknownError)$/.test(name) && byStatus ? byStatus : name;
  const hint = HINTS[code] ?? (error instanceof Error ? error.message : String(error));
  const what = key ? `${operation} of ${JSON.stringify(key)}` : operation;
  return new ObjectStorageFailed(operation, code, `S3 ${what} failed: ${code}: ${hint}`, {
    cause: error,
  });
}

/** `key` under the prefix, as a URL path: each segment percent-encoded, slashes kept. */
function keyPath(key: string): string {
  return key.split("/").map(encodeURIComponent).join("/");
}

/** An S3-compatible bucket as ObjectStorage; presigned URLs are signed at `clock`'s time. */
export function createS3Storage(
  deps: { settings: S3Settings; clock: Clock; timeoutMs?: number },
): ObjectStorage {
  const { settings, clock, timeoutMs = S3_CALL_TIMEOUT_MS } = deps;
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: {
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
    },
    // Each attempt is bounded too, so a retry still fits in the call's bound.
    requestHandler: { connectionTimeout: S3_CONNECT_TIMEOUT_MS, requestTimeout: timeoutMs },
    // The SDK's default extra CRC checksums are refused by several S3-compatible servers; the
    // signed SHA-256 of the payload already protects the bytes.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const { bucket, prefix } = settings;

  /** Runs `work` with an abort signal that fires at the call's bound; maps its failure. */
  async function bounded<T>(
    operation: ObjectStorageFailed["operation"],
    key: string,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const timeout = new TimeoutError(`S3 ${operation}`, timeoutMs);
    using deadline = abortAfter(timeoutMs, timeout);
    try {
      return await work(deadline.signal);
    } catch (error) {
      throw failure(operation, key, deadline.signal.aborted ? timeout : error);
    }
  }

  return {
    kind: "s3",

    async put(key, bytes, meta) {
      checkObjectKey(key);
      await bounded("put", key, (abortSignal) =>
        client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: prefix + key,
            Body: bytes,
            ContentType: meta.contentType,
            ContentDisposition: meta.contentDisposition,
          }),
          { abortSignal },
        ));
    },

    async get(key) {
      checkObjectKey(key);
      return await bounded("get", key, async (abortSignal) => {
        try {
          const answer = await client.send(
            new GetObjectCommand({ Bucket: bucket, Key: prefix + key }),
            { abortSignal },
          );
          const bytes = await answer.Body!.transformToByteArray();
          return { bytes, contentType: answer.ContentType ?? "application/octet-stream" };
        } catch (error) {
          if (error instanceof Error && error.name === "NoSuchKey") return null;
          throw error;
        }
      });
    },

    async delete(key) {
      checkObjectKey(key);
      await bounded(
        "delete",
        key,
        (abortSignal) =>
          client.send(new DeleteObjectCommand({ Bucket: bucket, Key: prefix + key }), {
            abortSignal,
          }),
      );
    },

    async urlFor(key, { expiresInSeconds }: ObjectUrlOptions) {
      checkObjectKey(key);
      if (settings.publicBaseUrl) return `${settings.publicBaseUrl}/${keyPath(prefix + key)}`;
      if (
        !Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 ||
        expiresInSeconds > MAX_PRESIGNED_SECONDS
      ) {
        throw new RangeError(`expiresInSeconds must be 1 to ${MAX_PRESIGNED_SECONDS}`);
      }
      // Signing is local (no request), so it needs no deadline.
      try {
        return await getSignedUrl(
          client,
          new GetObjectCommand({ Bucket: bucket, Key: prefix + key }),
          { expiresIn: expiresInSeconds, signingDate: new Date(clock.now()) },
        );
      } catch (error) {
        throw failure("urlFor", key, error);
      }
    },

    async check() {
      await bounded(
        "check",
        "",
        (abortSignal) => client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal }),
      );
    },

    close() {
      client.destroy();
      return Promise.resolve();
    },
  };
}
