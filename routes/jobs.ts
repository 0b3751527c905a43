/**
 * Capture jobs: POST /api/jobs (202, the items queued), GET /api/jobs/{id} (status and
 * results), GET /api/jobs/{id}/items/{n} (one item's bytes), DELETE /api/jobs/{id} (cancel what
 * has not started). docs/jobs.md tells the whole story.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  ApiError,
  invalidUrl,
  notFound,
  RateLimitErrorSchema,
  upstreamUnavailable,
} from "../lib/errors.ts";
import type { AppEnv } from "../lib/http/app_env.ts";
import { rateLimitBucket } from "../lib/http/client_ip.ts";
import { baseUrlOf } from "../lib/http/error_response.ts";
import { clientIpOf } from "../lib/http/middleware.ts";
import { binaryContent, errorResponses } from "../lib/http/openapi_responses.ts";
import { createRouter } from "../lib/http/router.ts";
import { isFinal } from "../lib/jobs/board.ts";
import { JOBS_BODY_LIMIT } from "../lib/jobs/service.ts";
import { jobLinks } from "../lib/jobs/views.ts";
import type { JobState } from "../lib/jobs/types.ts";
import { WEBHOOK_EVENTS } from "../lib/jobs/types.ts";
import { checkWebhookTarget } from "../lib/webhooks/boundary.ts";
import { InvalidWebhookTarget } from "../lib/webhooks/types.ts";
import { prepareCapture, refuseCapture } from "./capture_run.ts";
import {
  JobAcceptedSchema,
  JobIdParamsSchema,
  JobItemParamsSchema,
  JobRequestSchema,
  JobSchema,
  JobWebhookEventSchema,
} from "./job_schemas.ts";
import { ScreenshotRequestSchema } from "./screenshot_schemas.ts";

const submitRoute = createRoute({
  method: "post",
  path: "/api/jobs",
  operationId: "submitCaptureJob",
  tags: ["Jobs"],
  summary: "Submit up to 100 captures to run in the background",
  description: "Records the job and queues its items on the durable queue, then answers 202 " +
    "at once with the job's id and a Location to poll. Each request (with `defaults` under " +
    "it) is validated like POST /api/screenshot's body, and runs with the same cache, " +
    "boundary and render queue. Items count against the per-IP limit as they start: a job " +
    "over the allowance is accepted and paced, not refused; one IP may have at most " +
    "JOB_MAX_QUEUED_PER_IP items queued or running (429 past it). Results (bytes in object " +
    "storage, facts in the job) live JOB_TTL_SECONDS. With `webhook`, signed events are POSTed " +
    "when the job finishes (and per item if asked): see the callback.",
  request: {
    body: { content: { "application/json": { schema: JobRequestSchema } }, required: true },
  },
  responses: {
    202: {
      description: "Accepted: the items are queued.",
      headers: z.object({
        Location: z.string().openapi({
          description: "The job's path: GET it to poll.",
          example: "/api/jobs/job_3f9a1c0d8e7b6a5f4e3d2c1b0a998877",
        }),
      }),
      content: { "application/json": { schema: JobAcceptedSchema } },
    },
    // Not the per-minute window (items are paced, not refused): the cap on waiting items.
    429: {
      description: "This IP has JOB_MAX_QUEUED_PER_IP job items queued or running already. " +
        "Codes: rate_limited.",
      headers: z.object({
        "Retry-After": z.string().openapi({
          description: "Seconds until its waiting items should have run at its per-IP rate.",
          example: "45",
        }),
      }),
      content: { "application/json": { schema: RateLimitErrorSchema } },
    },
    ...errorResponses({
      400: {
        when: "A request the synchronous route would refuse (named by its index), no requests " +
          "or more than 100, or a webhook URL that is malformed or on a private, loopback or " +
          "otherwise forbidden address.",
        codes: ["invalid_request", "invalid_url", "unsupported_value", "forbidden_domain"],
      },
      413: {
        when: `The body is over ${JOBS_BODY_LIMIT / 1024 / 1024} MiB.`,
        codes: ["invalid_request"],
      },
      503: {
        when: "A webhook was asked but the server has no WEBHOOK_SECRET, or an optional part a " +
          "request needs is missing (as for POST /api/screenshot), or the queue is unavailable.",
        codes: ["upstream_unavailable"],
      },
    }),
  },
  callbacks: {
    jobWebhook: {
      "{$request.body#/webhook/url}": {
        post: {
          summary: "A job event, signed the Standard Webhooks way",
          description: "Headers webhook-id (the same on every retry of an event), " +
            "webhook-timestamp and webhook-signature (v1, HMAC-SHA256 of " +
            "`id.timestamp.body` with WEBHOOK_SECRET). Answer 2xx within 10 s; other answers " +
            "and timeouts are retried after 5 s, 1 min, 5 min, 30 min, 2 h and 5 h. Bodies " +
            "carry links, never image bytes.",
          requestBody: {
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/JobWebhookEvent" } },
            },
          },
          responses: { "200": { description: "Received." } },
        },
      },
    },
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/api/jobs/{id}",
  operationId: "getCaptureJob",
  tags: ["Jobs"],
  summary: "A job's status and its items' results",
  description: "Per item its status and, once done, the synchronous answer's fields without " +
    "the bytes plus `imageUrl`, or once failed its error envelope.",
  request: { params: JobIdParamsSchema },
  responses: {
    200: { description: "The job.", content: { "application/json": { schema: JobSchema } } },
    ...errorResponses({
      404: { when: "No such job, or it expired.", codes: ["not_found"] },
    }),
  },
});

const itemRoute = createRoute({
  method: "get",
  path: "/api/jobs/{id}/items/{n}",
  operationId: "getCaptureJobItem",
  tags: ["Jobs"],
  summary: "One done item's bytes",
  request: { params: JobItemParamsSchema },
  responses: {
    200: {
      description: "The item's image, PDF, recording or text.",
      content: binaryContent("image/png", "image/jpeg", "image/webp", "application/pdf"),
    },
    ...errorResponses({
      404: {
        when: "No such job or item, the item is not done (yet), or its bytes expired.",
        codes: ["not_found"],
      },
    }),
  },
});

const cancelRoute = createRoute({
  method: "delete",
  path: "/api/jobs/{id}",
  operationId: "cancelCaptureJob",
  tags: ["Jobs"],
  summary: "Cancel the items that have not started",
  description: "Queued items become cancelled; running ones finish. Answers the job as it " +
    "stands; cancelling a finished job changes nothing.",
  request: { params: JobIdParamsSchema },
  responses: {
    200: { description: "The job.", content: { "application/json": { schema: JobSchema } } },
    ...errorResponses({
      404: { when: "No such job, or it expired.", codes: ["not_found"] },
    }),
  },
});

const noSuchJob = () =>
  notFound("No such job.", {
    hint:
      "Check the id from the 202's Location; jobs are deleted JOB_TTL_SECONDS after submission.",
  });

/** `error` with the index of the request it is about in front of its message. */
function aboutItem(error: unknown, index: number): unknown {
  if (!(error instanceof ApiError)) return error;
  return new ApiError(error.status, error.code, `requests[${index}]: ${error.message}`, {
    hint: error.hint,
    headers: error.headers,
    extra: error.extra,
    logDetail: error.logDetail,
  });
}

/** Each request with the defaults under it, validated and checked like a synchronous one. */
async function itemsOf(c: Context<AppEnv>, raw: { requests: unknown[]; defaults?: object }) {
  const items: unknown[] = [];
  for (const [index, request] of raw.requests.entries()) {
    const merged = { ...raw.defaults, ...(request as object) };
    try {
      const parsed = ScreenshotRequestSchema.safeParse(merged);
      if (!parsed.success) refuseCapture(parsed.error.issues, merged);
      await prepareCapture(c.var.deps, parsed.data, parsed.data.format ?? "png");
    } catch (error) {
      throw aboutItem(error, index);
    }
    // Stored as sent: the worker parses it again, so the defaults of the day apply.
    items.push(merged);
  }
  return items;
}

/** The webhook URL, checked against the boundary; 503 without WEBHOOK_SECRET. */
async function webhookOf(c: Context<AppEnv>, webhook: { url: string; events?: string[] }) {
  const { jobs } = c.var.deps;
  if (!jobs.webhookBoundary) {
    throw upstreamUnavailable("Webhooks are not configured on this server (WEBHOOK_SECRET).", {
      hint: "Leave webhook out and poll the job, or ask the operator to set WEBHOOK_SECRET.",
    });
  }
  try {
    const url = await checkWebhookTarget(webhook.url, { boundary: jobs.webhookBoundary });
    const events = [...new Set(webhook.events ?? ["job.completed"])] as typeof WEBHOOK_EVENTS[
      number
    ][];
    return { url: url.href, events };
  } catch (error) {
    if (!(error instanceof InvalidWebhookTarget)) throw error;
    throw invalidUrl(`webhook.url: ${error.message}`, { hint: error.hint });
  }
}

/**
 * The job as JSON: its results are the synchronous answer's fields (captureFacts), which the
 * views keep as an open record.
 */
async function jobJson(c: Context<AppEnv>, state: JobState) {
  return await c.var.deps.jobs.views.view(state) as unknown as z.output<typeof JobSchema>;
}

function accepted(state: JobState) {
  return {
    id: state.id,
    status: "queued" as const,
    total: state.total,
    expiresAt: new Date(state.expiresAt).toISOString(),
    links: { self: jobLinks(state).self },
  };
}

export function createJobsRouter() {
  const router = createRouter();
  router.openAPIRegistry.register("JobWebhookEvent", JobWebhookEventSchema);

  router.openapi(submitRoute, async (c) => {
    const body = c.req.valid("json");
    // The parsed requests carry every field's default; the defaults must go under what was sent.
    const raw = await c.req.json() as { requests: unknown[]; defaults?: object };
    const requests = await itemsOf(c, raw);
    const webhook = body.webhook ? await webhookOf(c, body.webhook) : undefined;
    const state = await c.var.deps.jobs.submit({
      requests,
      ...(webhook ? { webhook } : {}),
      client: rateLimitBucket(clientIpOf(c)),
      baseUrl: baseUrlOf(c),
    });
    c.var.logFields.jobId = state.id;
    c.header("Location", `/api/jobs/${state.id}`);
    return c.json(accepted(state), 202);
  });

  router.openapi(getRoute, async (c) => {
    const { jobs } = c.var.deps;
    const state = await jobs.get(c.req.valid("param").id);
    if (!state) throw noSuchJob();
    c.header("Cache-Control", "no-store");
    return c.json(await jobJson(c, state), 200);
  });

  router.openapi(itemRoute, async (c) => {
    const { jobs, objectStorage } = c.var.deps;
    const { id, n } = c.req.valid("param");
    const state = await jobs.get(id);
    if (!state) throw noSuchJob();
    const index = Number(n);
    const item = state.items[index];
    if (!item) throw notFound(`The job has ${state.total} items, 0 to ${state.total - 1}.`);
    if (item.status !== "done") {
      throw notFound(
        `Item ${index} is ${item.status}: it has no bytes${isFinal(item) ? "" : " yet"}.`,
        {
          hint: isFinal(item)
            ? "See the item's error in GET /api/jobs/{id}."
            : "Poll GET /api/jobs/{id} until the item is done.",
        },
      );
    }
    const result = await jobs.views.result(state, index);
    const object = result?.ok ? await objectStorage.get(result.object.key) : null;
    if (!object) throw notFound(`Item ${index}'s bytes are gone (expired or deleted).`);
    const maxAge = Math.max(0, Math.floor((state.expiresAt - c.var.deps.clock.now()) / 1000));
    return c.body(object.bytes as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": object.contentType,
      "Cache-Control": `private, max-age=${maxAge}, immutable`,
    });
  });

  router.openapi(cancelRoute, async (c) => {
    const { jobs } = c.var.deps;
    const state = await jobs.cancel(c.req.valid("param").id);
    if (!state) throw noSuchJob();
    return c.json(await jobJson(c, state), 200);
  });

  return router;
}
