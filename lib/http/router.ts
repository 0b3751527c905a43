import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Hook } from "@hono/zod-openapi";
import type { AppEnv } from "./app_env.ts";
import {
  ApiError,
  ErrorSchema,
  invalidRequest,
  invalidUrl,
  methodNotAllowed,
  unsupportedValue,
} from "../errors.ts";

type ZodIssue = z.core.$ZodIssue;

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * Turns the first schema violation into the right code: missing field, value outside an enum,
 * bad URL, anything else. `input` is what was validated (zod 4 issues do not carry it).
 */
export function validationError(issues: readonly ZodIssue[], input: unknown): ApiError {
  const issue = issues[0];
  const field = issue?.path.map(String).join(".") || "body";
  if (!issue) return invalidRequest("The request is invalid.");
  if (issue.code === "invalid_type" && valueAt(input, issue.path) === undefined) {
    return invalidRequest(`${field} is required.`, {
      hint: `Send ${field}; see /openapi.json for the request schema.`,
    });
  }
  if (issue.code === "invalid_value") {
    const allowed = issue.values.map(String).join(", ");
    return unsupportedValue(`${field} must be one of: ${allowed}.`, {
      hint: `Set ${field} to one of: ${allowed}.`,
    });
  }
  if (issue.code === "invalid_format" && issue.format === "url") {
    return invalidUrl(`${field} must be an absolute http or https URL.`);
  }
  return invalidRequest(`${field}: ${issue.message}`, {
    hint: `Fix ${field}; see /openapi.json for the request schema.`,
  });
}

/** What a validation hook saw: zod-validator passes it at run time, its types omit it. */
export function validatedInput(result: object): unknown {
  return (result as { data?: unknown }).data;
}

// deno-lint-ignore no-explicit-any
const defaultHook: Hook<any, AppEnv, any, any> = (result) => {
  if (!result.success) throw validationError(result.error.issues, validatedInput(result));
};

/** Every sub-app is made here, so all share one environment type and one validation hook. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook });
}

/** Marks handlers that exist only to answer 405, so Allow headers do not count them. */
export const METHOD_PROBE = Symbol("methodProbe");

/** A 405 with the Allow header naming what the path does accept. */
export function notAllowedHere(method: string, allowed: string[]): ApiError {
  const allow = allowed.join(", ");
  return methodNotAllowed(`${method} is not allowed here; use ${allow}.`, {
    headers: { Allow: allow },
  });
}

/**
 * A documented GET operation that always answers 405 (the *MethodProbe operations of /openapi.json),
 * so clients reading /openapi.json learn the path is POST-only.
 */
export function mountMethodProbe(
  router: OpenAPIHono<AppEnv>,
  { path, operationId, tag }: { path: string; operationId: string; tag: string },
) {
  const route = createRoute({
    method: "get",
    path,
    operationId,
    tags: [tag],
    summary: `GET ${path} is not allowed`,
    description: `${path} accepts only POST; GET answers 405 with an Allow header.`,
    responses: {
      405: {
        description: "Method not allowed; the Allow header lists POST.",
        headers: z.object({ Allow: z.string().openapi({ example: "POST, OPTIONS" }) }),
        content: { "application/json": { schema: ErrorSchema } },
      },
    },
  });
  const handler = (c: { req: { method: string } }): never => {
    throw notAllowedHere(c.req.method, ["POST", "OPTIONS"]);
  };
  Object.assign(handler, { [METHOD_PROBE]: true });
  router.openapi(route, handler);
}
