/**
 * From a validated capture request to what the service is asked: the job's device type,
 * canonical options and credentials, and how the cache may answer (forceRefresh, maxAge,
 * staleWhileRevalidate, failOnHttpError). The checks that need more than the schema live here
 * (or in the modules it calls: viewport, format, emulation).
 */
import { invalidField } from "./request_failure.ts";
import type { ColorScheme, DeviceType } from "./devices.ts";
import { checkCredentials, type Credentials } from "./credentials.ts";
import { type ExclusiveFields, refuseContradictions } from "./exclusive.ts";
import { resolveEmulation } from "./emulation.ts";
import { resolveFormat } from "./image_format.ts";
import { canonicalOptions, type CaptureOptions } from "./options.ts";
import { resolveViewport, viewportOf } from "./viewport.ts";
import { checkOutputBounds, OUTPUT_PAIRS } from "./output_checks.ts";

/** The request body's fields beyond url, as the schema leaves them. */
export interface CaptureRequestFields extends ExclusiveFields {
  deviceType: DeviceType;
  colorScheme: ColorScheme;
}

/** What the route hands the screenshot service (the URL is parsed separately). */
export interface CapturePlan {
  deviceType: DeviceType;
  colorScheme: ColorScheme;
  /** Canonical: `{}` for a plain capture. */
  options: CaptureOptions;
  credentials?: Credentials;
  take: {
    forceRefresh: boolean;
    failOnHttpError: boolean;
    maxAgeMs?: number;
    staleWhileRevalidate?: boolean;
  };
}

/**
 * The plan of one request; 400 for a maxAge past the cache lifetime, bad credentials, or
 * options that contradict each other (exclusive.ts).
 */
export function planCapture(
  fields: CaptureRequestFields,
  limits: { cacheTtlSeconds: number },
): CapturePlan {
  const {
    deviceType: sentDeviceType,
    colorScheme,
    forceRefresh = false,
    maxAge,
    staleWhileRevalidate = false,
    failOnHttpError = false,
    cookies,
    headers,
    html: _html,
    ...requested
  } = fields;
  if (maxAge !== undefined && maxAge > limits.cacheTtlSeconds) {
    throw invalidField(
      "maxAge is longer than the cache keeps.",
      `Send maxAge between 0 and ${limits.cacheTtlSeconds} seconds (the cache ` +
        "lifetime); leave it out to accept any cached capture.",
    );
  }
  // Secrets: checked here, kept out of the options (so out of every key and log line).
  const credentials = checkCredentials({ cookies, headers });
  // Before any default is filled in: a pair is refused as the caller sent it.
  refuseContradictions(fields);
  refuseContradictions(fields, OUTPUT_PAIRS);
  // A named device brings its device type; a width or height at the default is none.
  const viewport = resolveViewport(sentDeviceType, requested);
  checkOutputBounds(viewport.options, viewportOf(viewport.deviceType, viewport.options));
  const options = resolveEmulation(resolveFormat(viewport.options));
  return {
    deviceType: viewport.deviceType,
    colorScheme,
    // Defaults dropped: a request without options is the very job it always was.
    options: canonicalOptions(options),
    ...(credentials ? { credentials } : {}),
    take: {
      // maxAge 0 accepts no cached capture at all: that is a refresh.
      forceRefresh: forceRefresh || maxAge === 0,
      failOnHttpError,
      ...(maxAge !== undefined ? { maxAgeMs: maxAge * 1000, staleWhileRevalidate } : {}),
    },
  };
}
