/**
 * Capture jobs in the discovery documents: the four operations under a described "Jobs" tag,
 * the 202 with its Location, the webhook as an OpenAPI 3.1 callback whose event schema resolves,
 * and the reference pages' account of both.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../../testing/app.ts";

const JOB_OPERATIONS = {
  submitCaptureJob: ["post", "/api/jobs"],
  getCaptureJob: ["get", "/api/jobs/{id}"],
  cancelCaptureJob: ["delete", "/api/jobs/{id}"],
  getCaptureJobItem: ["get", "/api/jobs/{id}/items/{n}"],
} as const;

type App = { request(path: string): Response | Promise<Response> };

async function textOf(app: App, path: string): Promise<string> {
  const res = await app.request(path);
  assert.equal(res.status, 200, path);
  return await res.text();
}

Deno.test("/openapi.json has the four job operations under the described Jobs tag", async () => {
  await using t = await disposable();
  const document = JSON.parse(await textOf(t.app, "/openapi.json"));
  for (const [id, [method, path]] of Object.entries(JOB_OPERATIONS)) {
    const operation = document.paths[path]?.[method];
    assert.equal(operation?.operationId, id, `${method} ${path}`);
    assert.deepEqual(operation.tags, ["Jobs"], id);
  }
  const jobs = document.tags.find((tag: { name: string }) => tag.name === "Jobs");
  assert.match(jobs?.description ?? "", /background/);
  const names = document.tags.map((tag: { name: string }) => tag.name);
  assert.deepEqual(names.slice(0, 2), ["Capture", "Jobs"], "in the order of the operations");
});

Deno.test("the submission answers 202 with a Location and a JobAccepted body", async () => {
  await using t = await disposable();
  const document = JSON.parse(await textOf(t.app, "/openapi.json"));
  const submit = document.paths["/api/jobs"].post;
  const accepted = submit.responses["202"];
  assert.ok(accepted, "a 202");
  assert.equal(submit.responses["200"], undefined, "no 200");
  assert.equal(accepted.headers.Location.schema.type, "string");
  assert.equal(
    accepted.content["application/json"].schema.$ref,
    "#/components/schemas/JobAccepted",
  );
  assert.ok(document.components.schemas.JobAccepted.properties.links);
});

Deno.test("the webhook is a callback whose body is a JobWebhookEvent that resolves", async () => {
  await using t = await disposable();
  const document = JSON.parse(await textOf(t.app, "/openapi.json"));
  const callbacks = document.paths["/api/jobs"].post.callbacks;
  const post = callbacks?.jobWebhook?.["{$request.body#/webhook/url}"]?.post;
  assert.ok(post, "POST to the request body's webhook.url");
  const ref: string = post.requestBody.content["application/json"].schema.$ref;
  assert.equal(ref, "#/components/schemas/JobWebhookEvent");
  const event = document.components.schemas[ref.split("/").pop()!];
  assert.deepEqual(event.properties.type.enum, ["job.completed", "item.completed"]);
  assert.match(post.description, /webhook-signature/);
  assert.ok(post.responses["200"]);
});

Deno.test("/llms-full.txt and /docs describe the job operations, the 202 and the webhook", async () => {
  await using t = await disposable();
  const full = await textOf(t.app, "/llms-full.txt");
  const docs = await textOf(t.app, "/docs");
  for (const [id, [method, path]] of Object.entries(JOB_OPERATIONS)) {
    assert.ok(full.includes(`### ${method.toUpperCase()} ${path} (\`${id}\`)`), id);
    assert.ok(docs.includes(`<section class="op" id="op-${id}">`), id);
  }
  assert.match(full, /^- \*\*202\*\* \(`application\/json`\): Accepted.* Headers: `Location`\.$/m);
  assert.match(full, /^Answer body of 202 \(`application\/json`\):$/m);
  const callback = "Callback `jobWebhook`: POST to the URL in the request body's `webhook.url`";
  assert.ok(full.includes(`#### ${callback}`));
  assert.ok(docs.includes("Callback <code>jobWebhook</code>: POST to the URL"));
  for (const text of [full, docs]) {
    for (const fact of ["webhook-id", "webhook-timestamp", "webhook-signature", "item.completed"]) {
      assert.ok(text.includes(fact), fact);
    }
  }
  assert.match(full, /`POST \/api\/jobs`: 1 to 100 requests a job\./, "its limits");
  const llms = await textOf(t.app, "/llms.txt");
  assert.ok(llms.includes("[POST /api/jobs](http://localhost/docs#op-submitCaptureJob)"));
});

async function disposable() {
  const t = await createTestApp();
  return { app: t.app, [Symbol.asyncDispose]: () => t.close() };
}
