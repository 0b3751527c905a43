import assert from "node:assert/strict";
import type { Store } from "../../lib/store/store.ts";
import { createTestApp } from "../../testing/app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";

Deno.test("an unknown path answers 404 not_found with the envelope", async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.request("/no/such/page");
    const body = await assertEnvelope(t.app, res, 404, "not_found");
    assert.equal(body.documentation, "http://localhost/docs#error-not_found");
    assert.equal(res.headers.get("vary"), "Accept");
  } finally {
    await t.close();
  }
});

Deno.test("a wrong method on a known path answers 405 with an Allow header", async () => {
  const t = await createTestApp();
  try {
    for (const path of ["/healthz", "/openapi.json", "/llms.txt", "/docs", "/"]) {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const res = await t.app.request(path, { method });
        await assertEnvelope(t.app, res, 405, "method_not_allowed");
        assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS", `${method} ${path}`);
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("HEAD works wherever GET does and OPTIONS lists the methods", async () => {
  const t = await createTestApp();
  try {
    const head = await t.app.request("/healthz", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const options = await t.app.request("/openapi.json", { method: "OPTIONS" });
    assert.equal(options.status, 204);
    assert.equal(options.headers.get("allow"), "GET, HEAD, OPTIONS");
  } finally {
    await t.close();
  }
});

Deno.test("PUBLIC_BASE_URL is used for documentation links", async () => {
  const t = await createTestApp({ env: { PUBLIC_BASE_URL: "https://shots.example" } });
  try {
    const body = await assertEnvelope(t.app, await t.app.request("/missing"), 404, "not_found");
    assert.equal(body.documentation, "https://shots.example/docs#error-not_found");
  } finally {
    await t.close();
  }
});

Deno.test("an unexpected exception is a 500 internal_error without internal text", async () => {
  const t = await createTestApp();
  const broken: Store = {
    ...t.deps.store,
    get kind(): Store["kind"] {
      throw new Error("secret internal detail at /srv/shotline/db");
    },
  };
  const failing = await createTestApp({ deps: { store: broken, log: t.log } });
  try {
    const res = await failing.app.request("/healthz", { headers: { "X-Request-Id": "req-42" } });
    assert.equal(res.headers.get("x-request-id"), "req-42");
    const body = await assertEnvelope(failing.app, res, 500, "internal_error");
    assert.doesNotMatch(JSON.stringify(body), /secret|\/srv|stack/);
    const logged = t.log.lines.find((line) => line.msg === "unhandled error");
    assert.equal(logged?.requestId, "req-42");
    assert.match(JSON.stringify(logged), /secret internal detail/);
  } finally {
    await failing.close();
    await t.close();
  }
});

Deno.test("every response carries X-Request-Id, kept only when sane", async () => {
  const t = await createTestApp();
  try {
    const kept = await t.app.request("/healthz", { headers: { "X-Request-Id": "abc-123.x:y" } });
    assert.equal(kept.headers.get("x-request-id"), "abc-123.x:y");
    const replaced = await t.app.request("/nope", {
      headers: { "X-Request-Id": "bad id\twith spaces" },
    });
    assert.match(replaced.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    const fresh = await t.app.request("/healthz");
    assert.match(fresh.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  } finally {
    await t.close();
  }
});

Deno.test("an error page answers Markdown when the client prefers it", async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.request("/nope", { headers: { Accept: "text/markdown" } });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.equal(res.headers.get("vary"), "Accept");
    const text = await res.text();
    assert.match(text, /^# 404 not_found/);
    assert.match(text, /docs#error-not_found/);
  } finally {
    await t.close();
  }
});

Deno.test("an Authorization header on a public route is ignored", async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.request("/healthz", { headers: { Authorization: "Bearer nonsense" } });
    assert.equal(res.status, 200);
    const docs = await t.app.request("/openapi.json", { headers: { Authorization: "Basic x" } });
    assert.equal(docs.status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("health reports ok and the store in use", async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.request("/healthz");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const body = await res.json();
    assert.equal(body.status, "ok");
    assert.equal(body.store, "deno-kv");
  } finally {
    await t.close();
  }
});

Deno.test("each request is logged as one JSON line with its fields", async () => {
  const t = await createTestApp();
  try {
    await t.app.request("/healthz", { headers: { "X-Request-Id": "log-me" } });
    const line = t.log.lines.find((l) => l.requestId === "log-me");
    assert.ok(line);
    assert.equal(line.msg, "request");
    assert.equal(line.method, "GET");
    assert.equal(line.path, "/healthz");
    assert.equal(line.status, 200);
    assert.equal(typeof line.durationMs, "number");
    assert.equal(typeof line.time, "string");
    assert.equal(line.level, "info");
  } finally {
    await t.close();
  }
});
