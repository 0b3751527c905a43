/**
 * GET /healthz (liveness: what this instance runs with) and GET /readyz (readiness: whether a
 * capture backend can take work), both public, so neither shows an address or an error text.
 */
import assert from "node:assert/strict";
import type { CaptureBackendStatus, Capturer } from "../../lib/capture/types.ts";
import { createTestApp } from "../../testing/app.ts";

const FLEET = "ws://127.0.0.1:9/devtools/browser/none";

async function boundaryOf(env: Record<string, string>): Promise<string> {
  const t = await createTestApp({ env });
  try {
    const res = await t.app.request("/healthz");
    assert.equal(res.status, 200);
    const body = await res.json();
    // The proxy's address never shows in /healthz.
    const listen = env.EGRESS_PROXY_LISTEN;
    if (listen) assert.ok(!JSON.stringify(body).includes(listen.split(":")[1]));
    return body.boundary;
  } finally {
    await t.close();
  }
}

Deno.test("/healthz says whether remote captures are inside the network boundary", async () => {
  // The local browser's own proxy: enforced.
  assert.equal(await boundaryOf({}), "enforced");
  // A remote fleet without EGRESS_PROXY_URL depends on the fleet's firewall.
  assert.equal(await boundaryOf({ BROWSER_WS_ENDPOINT: FLEET }), "advisory");
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  assert.equal(
    await boundaryOf({
      BROWSER_WS_ENDPOINT: FLEET,
      EGRESS_PROXY_LISTEN: `127.0.0.1:${port}`,
      EGRESS_PROXY_URL: `http://127.0.0.1:${port}`,
    }),
    "enforced",
  );
});

/** A capturer whose backends report the states a test sets; it never renders. */
function backendsIn(...states: CaptureBackendStatus["state"][]) {
  const current = { states };
  const capture: Capturer = {
    capture: () => Promise.reject(new Error("this double does not render")),
    status: () =>
      current.states.map((state, i) => ({
        name: `backend-${i}`,
        state,
        // What an operator may read in the logs, never on the public endpoints.
        detail: "ws://10.1.2.3:9222 connect ECONNREFUSED",
        ...(state === "down" ? { reason: "Chromium was not found" } : {}),
      })),
    close: () => Promise.resolve(),
  };
  return { capture, current };
}

async function readyz(app: { request(path: string): Response | Promise<Response> }) {
  const res = await app.request("/readyz");
  const type = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    type,
    cache: res.headers.get("cache-control"),
    body: await res.json(),
  };
}

Deno.test("/readyz is 503 while no backend is ready, starting included, and 200 once one is", async () => {
  const { capture, current } = backendsIn("starting", "starting");
  const t = await createTestApp({ deps: { capture } });
  try {
    const starting = await readyz(t.app);
    assert.equal(starting.status, 503);
    assert.match(starting.type, /^application\/json/);
    assert.equal(starting.cache, "no-store");
    assert.equal(starting.body.status, "not_ready");
    assert.match(starting.body.reason, /starting/);

    current.states = ["down", "ready"];
    const ready = await readyz(t.app);
    assert.equal(ready.status, 200);
    assert.match(ready.type, /^application\/json/);
    assert.deepEqual(ready.body, {
      status: "ready",
      capture: [{ name: "backend-0", state: "down" }, { name: "backend-1", state: "ready" }],
    });
  } finally {
    await t.close();
  }
});

Deno.test("with every backend down /readyz is 503 naming states only; /healthz stays 200", async () => {
  const { capture } = backendsIn("down", "down");
  const t = await createTestApp({ deps: { capture } });
  try {
    const down = await readyz(t.app);
    assert.equal(down.status, 503);
    assert.match(down.type, /^application\/json/);
    assert.equal(down.body.status, "not_ready");
    assert.match(down.body.reason, /down/);
    assert.deepEqual(down.body.capture, [
      { name: "backend-0", state: "down" },
      { name: "backend-1", state: "down" },
    ]);
    // Neither the endpoint nor the error text of a backend is public.
    const text = JSON.stringify(down.body);
    assert.ok(!text.includes("10.1.2.3") && !text.includes("ECONNREFUSED"), text);

    const live = await t.app.request("/healthz");
    assert.equal(live.status, 200);
    assert.match(live.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal((await live.json()).status, "ok");
  } finally {
    await t.close();
  }
});

Deno.test("/healthz names the job queue and where results go, by kind only", async () => {
  const t = await createTestApp();
  try {
    const body = await (await t.app.request("/healthz")).json();
    assert.deepEqual(body.jobs, { queue: "deno-kv", results: "store" });
  } finally {
    await t.close();
  }
});
