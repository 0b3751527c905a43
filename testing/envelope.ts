import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ErrorCode } from "../lib/errors.ts";

type AnyApp = { request(path: string, init?: RequestInit): Response | Promise<Response> };

const validators = new WeakMap<AnyApp, (schema: string, body: unknown) => string | null>();

/** Validates `body` against a schema the app itself publishes in /openapi.json. */
async function validatorFor(app: AnyApp) {
  let validate = validators.get(app);
  if (!validate) {
    const document = await (await app.request("/openapi.json")).json();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema({ $id: "openapi.json", components: document.components });
    validate = (schema, body) => {
      const check = ajv.getSchema(`openapi.json#/components/schemas/${schema}`);
      assert.ok(check, `schema ${schema} is published`);
      return check(body) ? null : ajv.errorsText(check.errors);
    };
    validators.set(app, validate);
  }
  return validate;
}

/**
 * Asserts a response is the error envelope: status, JSON content type, the six fields with
 * message === error and status repeated, and validity against the published schema.
 */
export async function assertEnvelope(
  app: AnyApp,
  response: Response,
  status: number,
  code: ErrorCode,
  schema = code === "rate_limited" ? "RateLimitError" : "Error",
): Promise<Record<string, unknown>> {
  const text = await response.text();
  assert.equal(response.status, status, `status (body: ${text.slice(0, 300)})`);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  const body = JSON.parse(text);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.equal(body.message, body.error);
  assert.ok(typeof body.error === "string" && body.error.length > 0, "error is a message");
  assert.ok(typeof body.hint === "string" && body.hint.length > 0, "hint is present");
  assert.match(body.documentation, new RegExp(`^https?://[^/]+/docs#error-${code}$`));
  const problem = (await validatorFor(app))(schema, body);
  assert.equal(problem, null, `envelope matches the published ${schema} schema`);
  return body;
}
