/**
 * The query of GET /api/render as a capture request: one parameter per top-level field of
 * POST /api/screenshot's body, strings as they are and everything else as its JSON text, read
 * through the body's own schema so a field is checked once, in one place.
 */
import type { z } from "@hono/zod-openapi";
import { IMAGE_FORMATS } from "../lib/capture/mod.ts";
import { invalidRequest, unsupportedValue } from "../lib/errors.ts";
import { refuseCapture, type ScreenshotRequest } from "./capture_run.ts";
import { ScreenshotRequestSchema } from "./screenshot_schemas.ts";

/** Fields a link may not carry, each with the reason its refusal gives. */
const REFUSED_FIELDS: Record<string, string> = {
  cookies: "A link is shareable, so it carries no credentials: capture a page behind a login " +
    "with POST /api/screenshot.",
  headers: "A link is shareable, so it carries no credentials: capture a page behind a login " +
    "with POST /api/screenshot.",
  forceRefresh: "A link is answered from the cache while its capture is fresh; send maxAge " +
    "(1 or more) to accept only a younger one.",
};

type FieldSchema = z.ZodType;

/** The schema under optional, default and pipe wrappers: what the field's value is. */
function innerOf(schema: FieldSchema): z.core.$ZodType {
  let inner = schema as z.core.$ZodType;
  for (;;) {
    const def = inner._zod.def as z.core.$ZodTypeDef & {
      innerType?: z.core.$ZodType;
      in?: z.core.$ZodType;
    };
    if (def.type === "optional" || def.type === "default" || def.type === "nullable") {
      inner = def.innerType!;
    } else if (def.type === "pipe") inner = def.in!;
    else return inner;
  }
}

/** How a field travels in the query: as text, or as JSON text; and what the reader sends. */
function kindOf(schema: FieldSchema): { asText: boolean; shape: string } {
  const def = innerOf(schema)._zod.def as z.core.$ZodTypeDef & { entries?: object };
  switch (def.type) {
    case "string":
      return { asText: true, shape: "text, as it is" };
    case "enum":
      return { asText: true, shape: `one of ${Object.values(def.entries!).join(", ")}` };
    case "number":
      return { asText: false, shape: "a number" };
    case "boolean":
      return { asText: false, shape: "true or false" };
    case "array":
      return { asText: false, shape: "a JSON array" };
    case "object":
    case "record":
      return { asText: false, shape: "a JSON object" };
    default:
      // A new field of a type this mapping does not know must be given a rule, not guessed.
      throw new Error(`render links cannot carry a ${def.type} field`);
  }
}

const SHAPE = ScreenshotRequestSchema.shape as Record<string, FieldSchema>;

/** Every field a link may carry, with how it travels; computed once, at start-up. */
const LINK_FIELDS = new Map(
  Object.entries(SHAPE).filter(([name]) => !(name in REFUSED_FIELDS))
    .map(([name, schema]) => [name, kindOf(schema)]),
);

/** The query parameters of GET /api/render in OpenAPI form (the fields, then the signing). */
export function renderQueryParameters() {
  const fields = [...LINK_FIELDS].map(([name, { shape }]) => ({
    name,
    in: "query" as const,
    required: false,
    description: `The capture field \`${name}\` of POST /api/screenshot's body: ` +
      `${name === "format" ? `one of ${IMAGE_FORMATS.join(", ")} (png by default)` : shape}.`,
    schema: {
      type: "string" as const,
      ...(name === "url" ? { example: "https://example.com" } : {}),
    },
  }));
  return [
    ...fields,
    {
      name: "expires",
      in: "query" as const,
      required: true,
      description: "Unix time in seconds from which the link is refused (403); signed with the " +
        "rest.",
      schema: { type: "string" as const, pattern: "^[0-9]+$", example: "1767225600" },
    },
    {
      name: "signature",
      in: "query" as const,
      required: true,
      description: "Lowercase hex HMAC-SHA256, under the service's RENDER_LINK_SECRET, of the " +
        "canonical query: every other parameter, names and values percent-encoded (RFC 3986), " +
        "sorted by name then value, joined as name=value with &.",
      schema: {
        type: "string" as const,
        pattern: "^[0-9a-f]{64}$",
        example: "5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592",
      },
    },
  ];
}

/** One parameter's value as the body would hold it; 400 when JSON text is not JSON. */
function valueOf(name: string, text: string): unknown {
  if (LINK_FIELDS.get(name)!.asText) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest(`${name} must be JSON text.`, {
      hint: `Send ${name} as its JSON text (${LINK_FIELDS.get(name)!.shape}), percent-encoded.`,
    });
  }
}

/**
 * The capture request a verified link's fields ask for, checked by the body's schema; 400 for
 * a field links may not carry, an unknown or repeated one, or a format other than an image.
 */
export function renderRequestOf(fields: [string, string][]): ScreenshotRequest {
  const body: Record<string, unknown> = {};
  for (const [name, text] of fields) {
    if (name in REFUSED_FIELDS) {
      throw invalidRequest(`${name} is not accepted in a render link.`, {
        hint: REFUSED_FIELDS[name],
      });
    }
    if (!LINK_FIELDS.has(name)) {
      throw invalidRequest(`${name} is not a capture field.`, {
        hint: "A render link carries the fields of POST /api/screenshot's body (see " +
          "/openapi.json), expires and signature only.",
      });
    }
    if (name in body) {
      throw invalidRequest(`${name} is given more than once.`, {
        hint: "Send each field once; arrays and objects travel as one JSON text.",
      });
    }
    body[name] = valueOf(name, text);
  }
  const parsed = ScreenshotRequestSchema.safeParse(body);
  if (!parsed.success) refuseCapture(parsed.error.issues, body);
  const request = parsed.data;
  const format = request.format ?? "png";
  if (!(IMAGE_FORMATS as readonly string[]).includes(format)) {
    throw unsupportedValue(`format must be one of: ${IMAGE_FORMATS.join(", ")}.`, {
      hint: "A render link answers an image for <img src>: png, jpeg or webp.",
    });
  }
  if (request.maxAge === 0) {
    throw invalidRequest("maxAge 0 is not accepted in a render link.", {
      hint: REFUSED_FIELDS.forceRefresh,
    });
  }
  return request;
}
