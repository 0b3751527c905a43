import { z } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { mediaHostList } from "./upstreams.ts";

/** The stable error codes (docs/errors.md): clients branch on these, so they never change. */
export const ERROR_CODES = [
  "invalid_request",
  "invalid_url",
  "unsupported_value",
  "unauthorized",
  "forbidden_domain",
  "not_found",
  "method_not_allowed",
  "rate_limited",
  "upstream_timeout",
  "upstream_unavailable",
  "upstream_failed",
  "internal_error",
] as const;

export type ErrorCode = typeof ERROR_CODES[number];

interface ErrorReference {
  /** Statuses this code is sent with, for the reference pages. */
  statuses: number[];
  meaning: string;
  /** Default hint when the thrower has nothing more specific to say. */
  hint: string;
}

/** One entry per code: the source of the error reference in /docs and /llms-full.txt. */
export const ERROR_REFERENCE: Record<ErrorCode, ErrorReference> = {
  invalid_request: {
    statuses: [400, 413, 416],
    meaning: "The request is malformed: wrong content type, unparseable body, missing field, " +
      "a body over the size limit, or a Range past the end of the bytes.",
    hint: "Check the request against /openapi.json: content type, required fields and body size.",
  },
  invalid_url: {
    statuses: [400],
    meaning: "A URL is not an absolute http(s) URL the service may fetch.",
    hint: "Send an absolute http:// or https:// URL of a public site, e.g. https://example.com.",
  },
  unsupported_value: {
    statuses: [400],
    meaning:
      "A field holds a value outside its allowed set, or an upload is not a supported image.",
    hint: "Use one of the allowed values listed for the field in /openapi.json.",
  },
  unauthorized: {
    statuses: [401, 403],
    meaning: "An operator-only endpoint was called without the right bearer token (401), or a " +
      "render link's signature is missing or does not match its parameters, or the link has " +
      "expired (403).",
    hint: "Send Authorization: Bearer <token> with the operator's token; use a render link " +
      "exactly as it was signed, before it expires.",
  },
  forbidden_domain: {
    statuses: [403],
    meaning: "The media URL's host is not one of the allowlisted media hosts.",
    hint: `Only https URLs on ${mediaHostList("and")} can be proxied.`,
  },
  not_found: {
    statuses: [404],
    meaning: "No such path, or no such post.",
    hint: "Check the path and identifier; /openapi.json lists every operation.",
  },
  method_not_allowed: {
    statuses: [405],
    meaning: "The path exists but not with this HTTP method.",
    hint: "Use one of the methods in the Allow response header.",
  },
  rate_limited: {
    statuses: [429],
    meaning: "Too many captures from this client IP in the last minute.",
    hint: "Wait for Retry-After seconds before retrying.",
  },
  upstream_timeout: {
    statuses: [408, 500],
    meaning: "The target page or upstream service did not answer in time.",
    hint: "Try again later, or try a lighter page.",
  },
  upstream_unavailable: {
    statuses: [503],
    meaning:
      "The service cannot take the work right now: no capture backend, or its queue is full.",
    hint: "Wait for Retry-After seconds (if sent) and retry.",
  },
  upstream_failed: {
    statuses: [500, 502],
    meaning: "The target or upstream refused the request or sent something unusable.",
    hint: "Check that the target is reachable from the public internet, then retry.",
  },
  internal_error: {
    statuses: [500],
    meaning: "The service failed unexpectedly, or an image could not be processed.",
    hint: "Retry once; if it persists, report the X-Request-Id of the response.",
  },
};

/** A failure the API reports on purpose; `onError` turns it into the envelope. */
export class ApiError extends Error {
  readonly hint: string;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;
  /** For the operator's log only, never the response (e.g. why a target was refused). */
  readonly logDetail: Record<string, unknown>;

  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    message: string,
    options: {
      hint?: string;
      headers?: Record<string, string>;
      extra?: Record<string, unknown>;
      logDetail?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.hint = options.hint ?? ERROR_REFERENCE[code].hint;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
    this.logDetail = options.logDetail ?? {};
  }
}

/** What an error may carry besides its code and message. */
export interface ErrorOptions {
  hint?: string;
  headers?: Record<string, string>;
  extra?: Record<string, unknown>;
  logDetail?: Record<string, unknown>;
  /** One of the code's other documented statuses (ERROR_REFERENCE), e.g. 413 invalid_request. */
  status?: ContentfulStatusCode;
}

/** The factory of one code: its first documented status unless `status` picks another. */
function errorFactory(code: ErrorCode) {
  const [usual] = ERROR_REFERENCE[code].statuses as ContentfulStatusCode[];
  return (message: string, options: ErrorOptions = {}): ApiError =>
    new ApiError(options.status ?? usual, code, message, options);
}

/** One factory per error code, so a status and its code are never paired by hand. */
export const invalidRequest = errorFactory("invalid_request");
export const invalidUrl = errorFactory("invalid_url");
export const unsupportedValue = errorFactory("unsupported_value");
export const unauthorized = errorFactory("unauthorized");
export const forbiddenDomain = errorFactory("forbidden_domain");
export const notFound = errorFactory("not_found");
export const methodNotAllowed = errorFactory("method_not_allowed");
export const rateLimited = errorFactory("rate_limited");
export const upstreamTimeout = errorFactory("upstream_timeout");
export const upstreamUnavailable = errorFactory("upstream_unavailable");
export const upstreamFailed = errorFactory("upstream_failed");
export const internalError = errorFactory("internal_error");

export const ErrorSchema = z.object({
  error: z.string().openapi({ example: "url must be an absolute http or https URL" }),
  code: z.enum(ERROR_CODES).openapi({ example: "invalid_url" }),
  message: z.string().openapi({
    description: "Same value as error.",
    example: "url must be an absolute http or https URL",
  }),
  hint: z.string().openapi({ example: "Send an absolute http:// or https:// URL." }),
  status: z.number().int().openapi({ example: 400 }),
  documentation: z.url().openapi({ example: "https://shotline.example/docs#error-invalid_url" }),
}).openapi("Error");

export const RateLimitErrorSchema = ErrorSchema.extend({
  retryAfter: z.number().int().openapi({
    description: "Seconds to wait; equals the Retry-After header.",
    example: 42,
  }),
}).openapi("RateLimitError");

export type ErrorEnvelope = z.infer<typeof ErrorSchema> & Record<string, unknown>;

/** Anchor of a code's entry in the HTML reference at /docs. */
export function errorAnchor(code: ErrorCode): string {
  return `error-${code}`;
}

/** The six-field envelope (plus any extra fields such as retryAfter) for an error. */
export function errorEnvelope(error: ApiError, baseUrl: string): ErrorEnvelope {
  return {
    error: error.message,
    code: error.code,
    message: error.message,
    hint: error.hint,
    status: error.status,
    documentation: `${baseUrl}/docs#${errorAnchor(error.code)}`,
    ...error.extra,
  };
}

/** The same envelope for a human reading Markdown. */
export function errorMarkdown(envelope: ErrorEnvelope): string {
  return [
    `# ${envelope.status} ${envelope.code}`,
    "",
    envelope.error,
    "",
    `**How to fix it:** ${envelope.hint}`,
    "",
    `Reference: ${envelope.documentation}`,
    "",
  ].join("\n");
}
