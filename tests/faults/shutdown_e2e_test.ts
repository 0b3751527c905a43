/**
 * SIGTERM on the real process (main.ts as a subprocess): captures of a page that takes 1.5 s to
 * load and a 1920x1080 export are in flight when the signal arrives. They finish with 200 within
 * the drain bound, new connections are refused from the signal on, the process exits 0, and no
 * Chromium process or temporary profile survives it.
 */
import assert from "node:assert/strict";
import { decodePng, schemePage, servePages } from "../../testing/capture_fixtures.ts";
import { assertNoChromiumLeft, chromiumProcesses, within } from "../../testing/fault_checks.ts";
import { BROWSER_WAIT_MS, eventually } from "../../testing/wait.ts";
import { type ServiceProcess, startService } from "../../testing/service_process.ts";
import { encodeFixture, screenshotPixels } from "../../testing/codecs.ts";

// The page the captures wait for (the brief: about 1.5 s), long enough to signal mid-flight.
const SLOW_PAGE_MS = 1_500;
// main.ts drains for at most 20 s; answers must come well within it (plus the browser's close).
const DRAIN_BOUND_MS = 20_000;

const ENV = {
  KV_PATH: ":memory:",
  ALLOW_PRIVATE_NETWORK: "true",
  RATE_LIMIT_PER_MINUTE: "1000",
  LOG_LEVEL: "info",
};

/** A request on its own connection (no pooled keep-alive socket survives it). */
async function request(url: string, init: RequestInit = {}): Promise<Response> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  try {
    const res = await fetch(url, { ...init, client });
    // Read the body before the client closes; hand back a replayable copy.
    const body = new Uint8Array(await res.arrayBuffer());
    return new Response(res.status === 204 ? null : body, {
      status: res.status,
      headers: res.headers,
    });
  } finally {
    client.close();
  }
}

async function captureState(svc: ServiceProcess): Promise<string> {
  const res = await request(`${svc.base}/healthz`);
  return (await res.json()).capture[0].state;
}

/** Whether a new TCP connection to the port is refused right now. */
async function refusesConnections(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.ConnectionRefused) return true;
    // Queued in the backlog as the listener closed: not served, but not yet refused either.
    if (error instanceof Deno.errors.ConnectionReset) return false;
    throw error;
  }
}

/** A multipart export body whose second half is sent only once `resume` resolves. */
function pausedUpload(png: Uint8Array, resume: Promise<void>) {
  const boundary = "shotline-fault-boundary";
  const encoder = new TextEncoder();
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = encoder.encode(
    field("format", "jpeg") + field("qualityPreset", "medium") +
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="shot.png"\r\n` +
      "Content-Type: image/png\r\n\r\n",
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const half = png.length >> 1;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
      controller.enqueue(png.slice(0, half));
    },
    async pull(controller) {
      await resume;
      controller.enqueue(png.slice(half));
      controller.enqueue(tail);
      controller.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

Deno.test("SIGTERM drains in-flight captures and exports, refuses new connections, exits 0", async () => {
  const arrivals: string[] = [];
  const pages = servePages({
    "/slow": async (req, hold) => {
      arrivals.push(new URL(req.url).search);
      await hold(SLOW_PAGE_MS);
      return new Response(schemePage(), { headers: { "content-type": "text/html" } });
    },
  });
  const png = await encodeFixture(screenshotPixels(1920, 1080), "png");
  const svc = await startService(ENV);
  try {
    await eventually(async () => await captureState(svc) === "ready", "Chromium launched", {
      timeoutMs: BROWSER_WAIT_MS,
    });
    const owner = { ownerPid: svc.pid };
    assert.ok(chromiumProcesses(owner).length > 0, "the service's Chromium is found");

    const resume = Promise.withResolvers<void>();
    const upload = pausedUpload(png, resume.promise);
    const exporting = request(`${svc.base}/api/export`, {
      method: "POST",
      headers: { "content-type": upload.contentType },
      body: upload.body,
    });
    let capturesDone = false;
    const capturing = Promise.all(
      ["?a", "?b"].map((query) =>
        request(`${svc.base}/api/screenshot`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: `${pages.origin}/slow${query}` }),
        })
      ),
    ).finally(() => capturesDone = true);
    await eventually(() => arrivals.length === 2, "both captures are loading the slow page", {
      timeoutMs: BROWSER_WAIT_MS,
    });

    svc.signal("SIGTERM");
    resume.resolve();
    await svc.waitForLine((l) => l.msg === "shutting down");
    await eventually(() => refusesConnections(svc.port), "new connections are refused");
    assert.equal(capturesDone, false, "refused while the captures were still in flight");

    const [exported, ...captures] = await within(
      Promise.all([exporting, ...await capturing]),
      DRAIN_BOUND_MS,
      "in-flight requests",
    );
    for (const res of captures) {
      assert.equal(res.status, 200, await res.clone().text());
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      const body = await res.json();
      assert.equal(body.cached, false);
      const shot = decodePng(Uint8Array.from(atob(body.screenshot), (c) => c.charCodeAt(0)));
      assert.deepEqual([shot.width, shot.height], [1920, 1080]);
    }
    assert.equal(exported.status, 200, await exported.clone().text());
    assert.equal(exported.headers.get("content-type"), "image/jpeg");
    const jpeg = new Uint8Array(await exported.arrayBuffer());
    assert.deepEqual([...jpeg.subarray(0, 3)], [0xff, 0xd8, 0xff]);
    assert.equal(exported.headers.get("x-export-output-bytes"), String(jpeg.length));

    const status = await within(svc.status, DRAIN_BOUND_MS, "exit after the drain")
      .catch((error) => Promise.reject(new Error(`${error.message}:\n${svc.describe()}`)));
    assert.equal(status.code, 0);
    assert.ok(svc.lines.some((l) => l.msg === "stopped"));
    assert.ok(!svc.lines.some((l) => l.msg === "drain timed out; closing with requests in flight"));
    assert.ok(svc.lines.some((l) => l.msg === "drained"));
    assert.ok(
      !svc.lines.some((l) => l.msg === "capture cache write failed"),
      "the answered captures were written to the cache before the store closed",
    );
    const served = svc.lines.filter((l) => l.msg === "request" && l.method === "POST");
    assert.deepEqual(served.map((l) => l.status), [200, 200, 200], "all three logged as 200");
    await assertNoChromiumLeft(owner);
  } finally {
    await svc.stop();
    await pages.close();
  }
});

Deno.test("SIGTERM right after start-up (Chromium possibly still launching) leaves nothing behind", async () => {
  const svc = await startService(ENV);
  try {
    svc.signal("SIGTERM");
    const status = await within(svc.status, DRAIN_BOUND_MS, "exit");
    assert.equal(status.code, 0);
    assert.ok(svc.lines.some((l) => l.msg === "stopped"));
    assert.equal(await refusesConnections(svc.port), true);
    await assertNoChromiumLeft({ ownerPid: svc.pid });
  } finally {
    await svc.stop();
  }
});

Deno.test("a second signal during the drain neither cuts the drain short nor exits non-zero", async () => {
  const pages = servePages({
    "/slow": async (_req, hold) => {
      await hold(SLOW_PAGE_MS);
      return new Response(schemePage(), { headers: { "content-type": "text/html" } });
    },
  });
  const svc = await startService(ENV);
  try {
    await eventually(async () => await captureState(svc) === "ready", "Chromium launched", {
      timeoutMs: BROWSER_WAIT_MS,
    });
    const capturing = request(`${svc.base}/api/screenshot`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${pages.origin}/slow` }),
    });
    await eventually(() => (pages.hits.get("/slow") ?? 0) === 1, "the capture is loading", {
      timeoutMs: BROWSER_WAIT_MS,
    });
    svc.signal("SIGTERM");
    await svc.waitForLine((l) => l.msg === "shutting down");
    svc.signal("SIGINT");
    const res = await within(capturing, DRAIN_BOUND_MS, "the capture");
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await svc.status).code, 0);
    assert.equal(svc.lines.filter((l) => l.msg === "shutting down").length, 1);
    await assertNoChromiumLeft({ ownerPid: svc.pid });
  } finally {
    await svc.stop();
    await pages.close();
  }
});
