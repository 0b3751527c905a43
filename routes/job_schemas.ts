/**
 * The shapes of capture jobs in /openapi.json: the submission, the 202, a job's view with its
 * items, and the webhook events (described as the submission's callback).
 */
import { z } from "@hono/zod-openapi";
import { ErrorSchema } from "../lib/errors.ts";
import { MAX_JOB_ITEMS } from "../lib/jobs/service.ts";
import { WEBHOOK_EVENTS } from "../lib/jobs/types.ts";
import { ScreenshotRequestSchema, ScreenshotResponseSchema } from "./screenshot_schemas.ts";

const STATUSES = ["queued", "running", "done", "failed", "cancelled"] as const;

const JOB_ID_EXAMPLE = "job_3f9a1c0d8e7b6a5f4e3d2c1b0a998877";
const JOB_URL_EXAMPLE = `https://shotline.example/api/jobs/${JOB_ID_EXAMPLE}`;

export const JobWebhookSchema = z.object({
  url: z.string().openapi({
    format: "uri",
    description: "Where the events are POSTed: an http(s) URL on the public internet (a private " +
      "or loopback address is refused at submission and again at delivery; redirects are not " +
      "followed). Needs WEBHOOK_SECRET on the server (else 503).",
    example: "https://hooks.example.com/shotline",
  }),
  events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length).optional().openapi({
    description: "Which events to send: `job.completed` when the job finishes (the default), " +
      "`item.completed` for each item as it finishes.",
    example: ["job.completed"],
  }),
}).strict().openapi("JobWebhook");

export const JobRequestSchema = z.object({
  requests: z.array(ScreenshotRequestSchema).min(1).max(MAX_JOB_ITEMS).openapi({
    description: `1 to ${MAX_JOB_ITEMS} capture requests, each the body of POST ` +
      "/api/screenshot (with `defaults` applied under it).",
  }),
  defaults: z.record(z.string(), z.unknown()).optional().openapi({
    description: "Fields of POST /api/screenshot's body applied to every request that does not " +
      "set them itself (e.g. deviceType, colorScheme, fullPage, format). Each request with its " +
      "defaults is validated like a synchronous one.",
    example: { deviceType: "desktop", fullPage: true },
  }),
  webhook: JobWebhookSchema.optional(),
}).strict().openapi("JobRequest", {
  example: {
    requests: [
      { url: "https://example.com", colorScheme: "light" },
      { url: "https://example.com", colorScheme: "dark" },
    ],
    defaults: { fullPage: true },
    webhook: { url: "https://hooks.example.com/shotline" },
  },
});

const JobLinksSchema = z.object({
  self: z.string().openapi({ format: "uri", example: JOB_URL_EXAMPLE }),
});

export const JobAcceptedSchema = z.object({
  id: z.string().openapi({
    description: "The job's id: unguessable, and all it takes to read its results.",
    example: JOB_ID_EXAMPLE,
  }),
  status: z.literal("queued"),
  total: z.number().int().openapi({ example: 2 }),
  expiresAt: z.string().openapi({
    format: "date-time",
    description: "When the job and its results are deleted (JOB_TTL_SECONDS after submission).",
  }),
  links: JobLinksSchema,
}).openapi("JobAccepted");

const ItemResultSchema = ScreenshotResponseSchema.omit({ screenshot: true, content: true })
  .extend({
    imageUrl: z.string().openapi({
      format: "uri",
      description: "The item's bytes in object storage: a presigned or public bucket URL when " +
        "S3_* is set, else a capture link of this service; works until the job expires.",
    }),
    bytes: z.number().int().openapi({ description: "Size of the bytes.", example: 48213 }),
    contentType: z.string().openapi({ example: "image/png" }),
  }).openapi("JobItemResult");

const WebhookProgressSchema = z.object({
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  lastStatus: z.number().int().optional(),
  lastError: z.string().optional(),
  nextAttemptAt: z.number().int().optional().openapi({ description: "Epoch ms." }),
  deliveredAt: z.number().int().optional().openapi({ description: "Epoch ms." }),
}).openapi("WebhookDelivery");

export const JobItemSchema = z.object({
  index: z.number().int().openapi({ description: "The request's position, from 0." }),
  status: z.enum(STATUSES),
  tries: z.number().int().openapi({
    description: "Runs started (a run whose instance was killed is tried again, up to " +
      "JOB_ITEM_MAX_TRIES).",
  }),
  startedAt: z.string().optional().openapi({ format: "date-time" }),
  finishedAt: z.string().optional().openapi({ format: "date-time" }),
  result: ItemResultSchema.optional().openapi({
    description: "Done items: the synchronous answer without its bytes, plus imageUrl.",
  }),
  error: ErrorSchema.optional().openapi({
    description: "Failed items: the error envelope a synchronous request would have had.",
  }),
  links: z.object({
    image: z.string().optional().openapi({
      format: "uri",
      description: "Done items: GET it for the bytes (GET /api/jobs/{id}/items/{n}).",
    }),
  }),
}).openapi("JobItem");

export const JobSchema = z.object({
  id: z.string().openapi({ example: JOB_ID_EXAMPLE }),
  status: z.enum(STATUSES).openapi({
    description: "queued until an item starts; running; then done (every item finished, some " +
      "may have failed), failed (every item failed) or cancelled.",
  }),
  total: z.number().int(),
  counts: z.object(Object.fromEntries(STATUSES.map((s) => [s, z.number().int()]))),
  createdAt: z.string().openapi({ format: "date-time" }),
  startedAt: z.string().optional().openapi({ format: "date-time" }),
  finishedAt: z.string().optional().openapi({ format: "date-time" }),
  expiresAt: z.string().openapi({ format: "date-time" }),
  links: JobLinksSchema,
  webhook: z.object({
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    deliveries: z.record(z.string(), WebhookProgressSchema).openapi({
      description: "Per event (`job.completed`, `item.completed.<n>`): how its delivery went.",
    }),
  }).optional(),
  items: z.array(JobItemSchema),
}).openapi("Job");

/** The body POSTed to a job's webhook (Standard Webhooks headers sign it). */
export const JobWebhookEventSchema = z.object({
  type: z.enum(WEBHOOK_EVENTS),
  timestamp: z.string().openapi({ format: "date-time" }),
  data: z.union([
    z.object({
      id: z.string(),
      status: z.enum(STATUSES),
      total: z.number().int(),
      links: JobLinksSchema,
      items: z.array(z.object({
        index: z.number().int(),
        status: z.enum(STATUSES),
        imageUrl: z.string().optional(),
        links: z.object({ image: z.string().optional() }).optional(),
        error: z.object({ code: z.string(), message: z.string() }).optional(),
      })),
    }).openapi({ description: "job.completed" }),
    z.object({
      jobId: z.string(),
      links: z.object({ job: z.string() }),
      item: JobItemSchema,
    }).openapi({ description: "item.completed" }),
  ]),
}).openapi("JobWebhookEvent");

export const JobIdParamsSchema = z.object({
  id: z.string().openapi({
    param: { name: "id", in: "path" },
    example: JOB_ID_EXAMPLE,
  }),
});

export const JobItemParamsSchema = JobIdParamsSchema.extend({
  n: z.string().regex(/^\d{1,3}$/).openapi({
    param: { name: "n", in: "path" },
    description: "The item's index, from 0.",
    example: "0",
  }),
});
