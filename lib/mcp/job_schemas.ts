/**
 * What the job tools take beyond their operations and what they answer: get_capture_job's
 * `waitSeconds`, and the compact job its structuredContent holds. A job of 100 items in full
 * (every capture's report and metadata) is far more than an agent needs to pick up its images,
 * so each item keeps its status, where its image is, and a failure's code and message; the
 * whole of it stays one GET /api/jobs/{id} away.
 */
import { z } from "zod";
import { invalidRequest } from "../errors.ts";
import type { SchemaObject } from "../discovery/openapi_document.ts";

/** The longest a call may wait for its job: well within what MCP clients wait for an answer. */
export const MAX_WAIT_SECONDS = 60;

const WaitArguments = z.object({
  waitSeconds: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe(
    `Wait up to this many seconds (at most ${MAX_WAIT_SECONDS}) for the job to finish before ` +
      "answering; it answers as soon as the job finishes. Without it the job is answered as " +
      "it stands.",
  ),
});

/** The wait arguments as JSON Schema properties, for get_capture_job's input schema. */
export function waitArgumentSchemas(): Record<string, SchemaObject> {
  const schema = z.toJSONSchema(WaitArguments, { target: "draft-2020-12" }) as SchemaObject;
  return schema.properties as Record<string, SchemaObject>;
}

/** Splits off how long to wait (0 when not asked); a malformed value is the operation's 400. */
export function splitWaitArguments(args: Record<string, unknown>) {
  const { waitSeconds, ...rest } = args;
  const parsed = WaitArguments.safeParse({ waitSeconds });
  if (!parsed.success) {
    throw invalidRequest(`waitSeconds: ${parsed.error.issues[0].message}.`, {
      hint: `Pass a number of seconds from 0 to ${MAX_WAIT_SECONDS}, or leave it out.`,
    });
  }
  return { waitSeconds: parsed.data.waitSeconds ?? 0, rest };
}

/** The fields of a done item's result the compact job keeps, flat on the item. */
export const ITEM_RESULT_FIELDS = [
  "url",
  "format",
  "width",
  "height",
  "imageUrl",
  "contentType",
  "bytes",
] as const;

type ObjectSchema = SchemaObject & { type: "object" };

/** An allOf of objects as one object (how a described $ref comes out of the document). */
function merged(schema: SchemaObject | undefined): SchemaObject | undefined {
  const parts = schema?.allOf as SchemaObject[] | undefined;
  if (!parts) return schema;
  return parts.reduce<SchemaObject>((all, part) => ({
    ...all,
    ...part,
    properties: { ...all.properties, ...part.properties },
    required: [...all.required ?? [], ...part.required ?? []],
  }), {});
}

/** `schema` with only the properties named (and those of them required). */
function pick(raw: SchemaObject | undefined, names: readonly string[]): ObjectSchema {
  const schema = merged(raw);
  const properties = Object.fromEntries(
    names.flatMap((name) => {
      const field = schema?.properties?.[name];
      return field ? [[name, field]] : [];
    }),
  );
  const required = schema?.required?.filter((name) => name in properties);
  return {
    type: "object",
    ...(schema?.description ? { description: schema.description } : {}),
    properties,
    ...(required?.length ? { required } : {}),
  };
}

/**
 * The outputSchema of get_capture_job from the operation's Job schema (inlined): the job's own
 * fields, the webhook's target, and per item the fields the compact view keeps, so each keeps
 * the description /openapi.json gives it.
 */
export function compactJobSchema(job: SchemaObject): ObjectSchema {
  const top = Object.keys(job.properties ?? {}).filter((n) => n !== "items" && n !== "webhook");
  const schema = pick(job, top);
  const item = job.properties?.items?.items as SchemaObject | undefined;
  const result = item?.properties?.result;
  const itemSchema = pick(item, ["index", "status"]);
  Object.assign(itemSchema.properties!, pick(result, ITEM_RESULT_FIELDS).properties, {
    findings: {
      type: "array",
      items: { type: "string" },
      description: "Kinds of the capture report's findings (a bot check, a consent wall, ...): " +
        "the image may not show the page as meant; GET the job for their hints.",
    },
    error: { ...pick(item?.properties?.error, ["code", "message", "hint"]), required: ["code"] },
  });
  schema.properties!.webhook = pick(job.properties?.webhook, ["url", "events"]);
  schema.properties!.items = {
    type: "array",
    description: "Every item in order; a done one with where its image is, a failed one with " +
      "its error's code and message.",
    items: itemSchema,
  };
  return schema;
}
