import { createRoute, z } from "@hono/zod-openapi";
import {
  ApiError,
  type ErrorCode,
  ErrorSchema,
  internalError,
  notFound,
  upstreamFailed,
  upstreamTimeout,
} from "../lib/errors.ts";
import { POST_TTL_MS } from "../lib/posts/cache.ts";
import { createRouter, validatedInput, validationError } from "../lib/http/router.ts";
import {
  fetchPost,
  PostFailure,
  TOMBSTONE_REASONS,
  tombstoneHint,
} from "../lib/posts/syndication.ts";
import { traced } from "../lib/telemetry/trace.ts";

// Real post ids are 19 digits; 40 leaves room to grow while bounding what we send upstream.
const MAX_ID_DIGITS = 40;

const ParamsSchema = z.object({
  id: z.string().regex(/^[0-9]+$/, "must be a numeric post id (digits only)")
    .max(MAX_ID_DIGITS, `must be at most ${MAX_ID_DIGITS} digits`)
    .openapi({
      param: { name: "id", in: "path" },
      description: "Numeric status id: the number at the end of the post's URL.",
      example: "1628832338187636740",
    }),
});

export const PostResponseSchema = z.object({
  data: z.record(z.string(), z.unknown()).nullable().openapi({
    description: "The public post payload exactly as the syndication interface returned it; " +
      "null when the post is unavailable. Its inner fields are not part of this contract.",
    example: { __typename: "Tweet", id_str: "1628832338187636740", text: "Hello" },
  }),
  error: z.string().optional().openapi({ description: "Present only when data is null." }),
}).openapi("PostResponse");

/** Failures of getPost: the envelope plus `data: null`, so they also satisfy PostResponse. */
export const PostErrorSchema = ErrorSchema.extend({
  data: z.null().openapi({ description: "Always null on failure." }),
  reason: z.enum(TOMBSTONE_REASONS).optional().openapi({
    description: "Only on 404 for an existing but unavailable post: why it cannot be shown.",
    example: "private",
  }),
}).openapi("PostError");

const postError = (when: string, codes: ErrorCode[]) => ({
  description: `${when} Codes: ${codes.join(", ")}.`,
  content: { "application/json": { schema: PostErrorSchema } },
});

const getPostRoute = createRoute({
  method: "get",
  path: "/api/post/{id}",
  operationId: "getPost",
  tags: ["Posts"],
  summary: "Resolve a social-network post by id",
  description: "Returns the public payload of a post from the syndication interface, for " +
    "rendering it as an image. Answers are cached for minutes (unknown posts more briefly) and " +
    "identical concurrent lookups share one upstream call.",
  request: { params: ParamsSchema },
  responses: {
    200: {
      description: "The post payload.",
      content: {
        "application/json": {
          schema: PostResponseSchema,
          example: { data: { __typename: "Tweet", id_str: "1628832338187636740", text: "Hello" } },
        },
      },
    },
    400: postError("The id is not numeric or longer than 40 digits.", ["invalid_request"]),
    404: postError(
      "No post with that id, or it is private, deleted or withheld (the hint says which).",
      ["not_found"],
    ),
    500: postError("The upstream failed, sent something unusable or was too slow.", [
      "upstream_failed",
      "upstream_timeout",
      "internal_error",
    ]),
  },
});

/** The answer for a lookup the syndication interface could not settle. */
function postFailureError(failure: PostFailure): ApiError {
  const { detail } = failure;
  switch (detail.kind) {
    case "unfetchable":
      return upstreamFailed("The post could not be fetched.", { hint: detail.reason });
    case "timeout":
      return upstreamTimeout("The syndication service did not answer in time.", {
        status: 500,
        hint: `It gave no complete answer within ${detail.timeoutMs} ms; retry in a moment.`,
      });
  }
}

/** Adds `data: null` to an error, keeping everything else. */
function withNullData(error: ApiError): ApiError {
  return new ApiError(error.status, error.code, error.message, {
    hint: error.hint,
    headers: error.headers,
    extra: { ...error.extra, data: null },
  });
}

/** GET /api/post/{id}: a post's payload via the store-backed, coalescing cache. */
export function createPostRouter() {
  return createRouter().openapi(getPostRoute, async (c) => {
    const { posts, log, fetch, upstreams } = c.var.deps;
    // Leading zeros name the same post; dropping them keeps one cache entry per post.
    const id = c.req.valid("param").id.replace(/^0+(?=\d)/, "");
    try {
      const { lookup, source } = await traced("post.lookup", {}, async (span) => {
        const found = await posts.lookup(id, () =>
          fetchPost({
            fetch,
            origin: upstreams.syndicationOrigin,
            id,
            timeoutMs: upstreams.postTimeoutMs,
          }).catch((error) => {
            // Mapped here, inside the span, so the span's outcome is the answer's code.
            throw error instanceof PostFailure ? postFailureError(error) : error;
          }));
        span.setAttributes({ source: found.source, result: found.lookup.kind });
        return found;
      });
      c.var.logFields.cache = source;
      if (lookup.kind === "not_found") {
        throw notFound(`No post with id ${id}.`, {
          hint: "Check the id: it is the number at the end of the post's URL.",
        });
      }
      if (lookup.kind === "tombstone") {
        throw notFound(`Post ${id} is not available.`, {
          hint: tombstoneHint(lookup.reason),
          extra: { reason: lookup.reason },
        });
      }
      c.header("Cache-Control", `public, max-age=${POST_TTL_MS / 1000}`);
      return c.json({ data: lookup.data }, 200);
    } catch (error) {
      if (error instanceof ApiError) throw withNullData(error);
      log.error("post lookup failed", { requestId: c.var.requestId, error });
      throw withNullData(internalError("The service failed unexpectedly."));
    }
  }, (result) => {
    // This operation's failures all carry data: null, validation failures included.
    if (!result.success) {
      throw withNullData(validationError(result.error.issues, validatedInput(result)));
    }
  });
}
