/**
 * The real main.ts under Deno Deploy's permission set (no FFI, no subprocess, no file writes, no
 * system information; docs/operating.md): it starts, reports the local Chromium as down with the
 * reason, and answers a request of every kind. Captures are 503 without BROWSER_WS_ENDPOINT and
 * rendered by the remote browser with it; exports take the wasm path; posts and media come from
 * loopback servers impersonating their HTTPS hosts (HTTPS_PROXY plus DENO_CERT, as an operator
 * behind a proxy would set them).
 */
import assert from "node:assert/strict";
import { schemePage, servePages } from "../../testing/capture_fixtures.ts";
import { type ServiceProcess, startService } from "../../testing/service_process.ts";
import { exportForm } from "../../testing/export_form.ts";
import { TINY_PNG } from "../../testing/loopback_upstream.ts";
import { startRemoteChromium } from "../../testing/remote_chromium.ts";
import {
  IMPERSONATED_MEDIA_URL,
  IMPERSONATED_POST as POST,
  impersonatedUpstreams,
} from "../../testing/impersonated_upstreams.ts";

const DEPLOY_PERMISSIONS = ["-A", "--deny-ffi", "--deny-run", "--deny-write", "--deny-sys"];
const METRICS_TOKEN = "deploy-permissions-metrics-token";

/** main.ts under DEPLOY_PERMISSIONS, allowed to capture loopback pages, with /metrics on. */
function startDeployLike(env: Record<string, string>) {
  return startService({
    ...env,
    KV_PATH: ":memory:",
    ALLOW_PRIVATE_NETWORK: "true",
    METRICS_TOKEN,
  }, { permissions: DEPLOY_PERMISSIONS });
}

async function call(svc: ServiceProcess, path: string, init: RequestInit = {}) {
  const res = await fetch(`${svc.base}${path}`, init);
  const body = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body, text: new TextDecoder().decode(body) };
}

function capture(svc: ServiceProcess, url: string) {
  return call(svc, "/api/screenshot", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url }),
  });
}

/** Every request kind except captures: exports (wasm), posts, media, discovery, editor, metrics. */
async function assertEverythingElseWorks(svc: ServiceProcess) {
  const form = await exportForm("webp", "medium");
  const exported = await call(svc, "/api/export", { method: "POST", body: form });
  assert.equal(exported.status, 200, exported.text);
  assert.equal(exported.headers.get("content-type"), "image/webp");
  assert.equal(exported.headers.get("x-export-encoder"), "wasm");
  assert.equal(new TextDecoder().decode(exported.body.subarray(8, 12)), "WEBP");

  const post = await call(svc, `/api/post/${POST.id_str}`);
  assert.equal(post.status, 200, post.text);
  assert.deepEqual(JSON.parse(post.text), { data: POST });

  const media = await call(svc, `/api/image-proxy?url=${IMPERSONATED_MEDIA_URL}`);
  assert.equal(media.status, 200, media.text);
  assert.equal(media.headers.get("content-type"), "image/png");
  assert.deepEqual(media.body, TINY_PNG);

  for (const path of ["/openapi.json", "/llms.txt", "/llms-full.txt", "/docs", "/"]) {
    const res = await call(svc, path);
    assert.equal(res.status, 200, `${path}: ${res.text.slice(0, 200)}`);
  }
  const scrape = await call(svc, "/metrics", {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  assert.equal(scrape.status, 200, scrape.text);
  assert.match(scrape.text, /^shotline_http_requests_total\{route="\/api\/export",/m);
}

Deno.test("under Deno Deploy's permissions, without a remote browser: captures 503, all else works", async () => {
  const upstreams = impersonatedUpstreams();
  const pages = servePages();
  let svc: ServiceProcess | undefined;
  try {
    svc = await startDeployLike(upstreams.env);
    const failed = await svc.waitForLine((l) => l.msg === "browser launch failed");
    assert.match(String(failed.error), /run permission .* not granted/);

    const health = JSON.parse((await call(svc, "/healthz")).text);
    assert.equal(health.status, "ok");
    assert.equal(health.encoder, "wasm");
    assert.equal(health.capture[0].name, "chromium-local");
    assert.equal(health.capture[0].state, "down");
    assert.match(health.capture[0].reason, /run permission/);

    const shot = await capture(svc, `${pages.origin}/`);
    assert.equal(shot.status, 503, shot.text);
    assert.equal(JSON.parse(shot.text).code, "upstream_unavailable");

    await assertEverythingElseWorks(svc);
    const status = await svc.stop();
    assert.equal(status.code, 0, "still running until asked to stop, then a clean exit");
  } finally {
    await svc?.stop();
    await pages.close();
    await upstreams.close();
  }
});

Deno.test("under Deno Deploy's permissions, with BROWSER_WS_ENDPOINT: the remote browser captures", async () => {
  const upstreams = impersonatedUpstreams();
  const pages = servePages({ "/dark": () => new Response(schemePage(), { headers: html }) });
  await using remote = await startRemoteChromium();
  let svc: ServiceProcess | undefined;
  try {
    svc = await startDeployLike({ ...upstreams.env, BROWSER_WS_ENDPOINT: remote.endpoint });
    const shot = await capture(svc, `${pages.origin}/dark`);
    assert.equal(shot.status, 200, shot.text);
    const body = JSON.parse(shot.text);
    assert.equal(body.strategy, "chromium-remote");
    assert.equal(body.cached, false);
    assert.ok(body.screenshot.startsWith("iVBORw0KGgo"), "a base64 PNG");

    await assertEverythingElseWorks(svc);
    const status = await svc.stop();
    assert.equal(status.code, 0);
  } finally {
    await svc?.stop();
    await pages.close();
    await upstreams.close();
  }
});

const html = { "content-type": "text/html; charset=utf-8" };

Deno.test("with env access for a few names only, the rest count as unset and the service serves", async () => {
  const names = "HOST,PORT,KV_PATH,METRICS_TOKEN";
  const permissions = ["--allow-net", "--allow-read", `--allow-env=${names}`];
  const svc = await startService({ KV_PATH: ":memory:", METRICS_TOKEN }, { permissions });
  try {
    const denied = await svc.waitForLine((l) => l.msg === "env access denied; using defaults");
    assert.ok((denied.variables as string[]).includes("BROWSER_WS_ENDPOINT"));
    assert.ok(!(denied.variables as string[]).includes("KV_PATH"));
    const failed = await svc.waitForLine((l) => l.msg === "browser launch failed");
    assert.match(String(failed.error), /env access|run permission/);
    const health = JSON.parse((await call(svc, "/healthz")).text);
    assert.equal(health.capture[0].state, "down");
    const scrape = await call(svc, "/metrics", {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(scrape.status, 200, "METRICS_TOKEN, readable, was applied");
    assert.equal((await svc.stop()).code, 0);
  } finally {
    await svc.stop();
  }
});
