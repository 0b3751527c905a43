/**
 * Capture jobs through the HTTP API with a solid-colour capturer, on the Deno KV store and its
 * queue: submit (202, Location), poll, each item's result and bytes, validation, cancel,
 * pacing by the per-IP allowance, and the per-IP cap on waiting items.
 */
import assert from "node:assert/strict";
import { createJobsApp } from "../../testing/jobs_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import type { ErrorCode } from "../../lib/errors.ts";
import { CaptureFailure } from "../../lib/capture/types.ts";
import { createObjectStorage } from "../../lib/storage/open.ts";
import {
  type ObjectStorage,
  ObjectStorageFailed,
  ObjectTooLarge,
} from "../../lib/storage/types.ts";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];

Deno.test("a job runs every item: 202, Location, results with imageUrl, bytes", async () => {
  await using t = await createJobsApp();
  const res = await t.submit({
    requests: [
      { url: "https://example.com/a" },
      { url: "https://example.com/b", colorScheme: "dark" },
      { url: "https://example.com/c", format: "jpeg" },
    ],
    defaults: { deviceType: "mobile" },
  });
  assert.equal(res.status, 202);
  const accepted = await res.json();
  assert.match(accepted.id, /^job_[0-9a-f]{32}$/);
  assert.equal(accepted.status, "queued");
  assert.equal(accepted.total, 3);
  assert.equal(res.headers.get("location"), `/api/jobs/${accepted.id}`);
  assert.equal(accepted.links.self, `http://localhost/api/jobs/${accepted.id}`);

  const view = await t.until(accepted.id);
  assert.equal(view.status, "done");
  assert.deepEqual(view.counts, { queued: 0, running: 0, done: 3, failed: 0, cancelled: 0 });
  for (const [n, item] of view.items.entries()) {
    assert.equal(item.status, "done");
    assert.equal(item.tries, 1);
    const result = item.result!;
    assert.equal(result.deviceType, "mobile", "defaults apply under each request");
    assert.equal("screenshot" in result, false, "no bytes in the job");
    const bytes = new Uint8Array(
      await (await t.app.request(`/api/jobs/${accepted.id}/items/${n}`)).arrayBuffer(),
    );
    assert.equal(bytes.byteLength, result.bytes);
    // The store spill serves the same bytes at the imageUrl (a capture link of this service).
    const linked = await t.app.request(new URL(result.imageUrl).pathname);
    assert.equal(linked.status, 200);
    assert.deepEqual(new Uint8Array(await linked.arrayBuffer()), bytes);
  }
  assert.equal(view.items[1].result!.colorScheme, "dark");
  assert.equal(view.items[2].result!.contentType, "image/jpeg");
  const png = await t.app.request(`/api/jobs/${accepted.id}/items/0`);
  assert.equal(png.headers.get("content-type"), "image/png");
  assert.deepEqual([...new Uint8Array(await png.arrayBuffer()).subarray(0, 4)], PNG_SIGNATURE);
});

Deno.test("a job's requests are validated like synchronous ones, by index", async () => {
  await using t = await createJobsApp({ worker: false });
  const cases: [unknown, number, ErrorCode, RegExp][] = [
    [{ requests: [] }, 400, "invalid_request", /requests/],
    [
      { requests: Array(101).fill({ url: "https://example.com" }) },
      400,
      "invalid_request",
      /requests/,
    ],
    [
      { requests: [{ url: "https://example.com" }, { url: "nope" }] },
      400,
      "invalid_url",
      /^requests\[1\]: /,
    ],
    [
      { requests: [{ url: "https://example.com" }], defaults: { deviceType: "watch" } },
      400,
      "unsupported_value",
      /^requests\[0\]: deviceType/,
    ],
    [{ requests: [{ url: "http://127.0.0.1:9/" }] }, 400, "invalid_url", /^requests\[0\]/],
    [
      { requests: [{ url: "https://example.com" }], webhook: { url: "https://hooks.example" } },
      503,
      "upstream_unavailable",
      /WEBHOOK_SECRET/,
    ],
  ];
  // Loopback targets are refused here: this app keeps the production boundary.
  await using strict = await createJobsApp({
    worker: false,
    env: { ALLOW_PRIVATE_NETWORK: "false" },
  });
  for (const [body, status, code, message] of cases) {
    const res = await strict.submit(body);
    const envelope = await assertEnvelope(strict.app, res, status, code);
    assert.match(String(envelope.message), message, JSON.stringify(body).slice(0, 80));
  }
  assert.equal((await t.app.request("/api/jobs/job_0123")).status, 404);
  const missing = await t.app.request(`/api/jobs/job_${"0".repeat(32)}`);
  await assertEnvelope(t.app, missing, 404, "not_found");
});

Deno.test("DELETE cancels what has not started; the job ends cancelled", async () => {
  await using t = await createJobsApp({ worker: false });
  const { id } = await (await t.submit({
    requests: [{ url: "https://example.com/1" }, { url: "https://example.com/2" }],
  })).json();
  const res = await t.app.request(`/api/jobs/${id}`, { method: "DELETE" });
  assert.equal(res.status, 200);
  const view = await res.json();
  assert.equal(view.status, "cancelled");
  assert.deepEqual(view.items.map((i: { status: string }) => i.status), ["cancelled", "cancelled"]);
  assert.ok(view.finishedAt);
  // Its queued messages find nothing to run once a worker starts.
  t.worker.start();
  const item = await t.app.request(`/api/jobs/${id}/items/0`);
  await assertEnvelope(t.app, item, 404, "not_found");
  assert.equal((await t.job(id)).status, "cancelled");
});

Deno.test("a job over the per-IP allowance is accepted and paced, not refused", async () => {
  await using t = await createJobsApp({ env: { RATE_LIMIT_PER_MINUTE: "2" } });
  const res = await t.submit({
    requests: [1, 2, 3, 4].map((n) => ({ url: `https://example.com/${n}` })),
  });
  assert.equal(res.status, 202);
  const { id } = await res.json();
  const view = await t.until(id, (v) => v.counts.done === 2);
  // The other two wait for the window: queued, not failed.
  assert.equal(view.counts.queued, 2);
  assert.equal(view.status, "running");
  // The synchronous route shares the allowance: it is used up.
  const sync = await t.shoot({ url: "https://example.com/sync" });
  assert.equal(sync.status, 429);
  await t.app.request(`/api/jobs/${id}`, { method: "DELETE" });
});

Deno.test("one IP may have JOB_MAX_QUEUED_PER_IP items waiting; past it 429", async () => {
  await using t = await createJobsApp({
    worker: false,
    env: { JOB_MAX_QUEUED_PER_IP: "3", TRUST_PROXY_HOPS: "1" },
  });
  const two = { requests: [{ url: "https://example.com/1" }, { url: "https://example.com/2" }] };
  const client = { "X-Forwarded-For": "198.51.100.7" };
  const first = await t.submit(two, client);
  assert.equal(first.status, 202);
  const refused = await t.submit(two, client);
  const envelope = await assertEnvelope(t.app, refused, 429, "rate_limited");
  assert.match(String(envelope.message), /2 job items waiting/);
  assert.ok(Number(refused.headers.get("retry-after")) >= 1);
  // Another client is not concerned.
  const other = await t.submit(two, { "X-Forwarded-For": "203.0.113.9" });
  assert.equal(other.status, 202);
  // Cancelling frees the first client's places.
  await t.app.request(`/api/jobs/${(await first.json()).id}`, { method: "DELETE" });
  assert.equal((await t.submit(two, client)).status, 202);
});

Deno.test("a failed item carries the envelope the synchronous request gets", async () => {
  await using t = await createJobsApp();
  t.capture.failWith = new CaptureFailure({
    kind: "page_failed",
    cause: new Error("net::ERR_CONNECTION_REFUSED"),
    url: "https://example.com/down",
    timeoutMs: 15_000,
    timedOut: false,
  });
  const sync = await (await t.shoot({ url: "https://example.com/down" })).json();
  const { id } = await (await t.submit({ requests: [{ url: "https://example.com/down" }] })).json();
  const view = await t.until(id);
  assert.equal(view.status, "failed");
  const [item] = view.items;
  assert.equal(item.status, "failed");
  assert.equal(item.tries, 1, "a target that failed is the item's answer, not retried");
  assert.equal(item.error!.code, sync.code);
  assert.equal(item.error!.status, sync.status);
  assert.equal(item.error!.message, sync.message);
  const bytes = await t.app.request(`/api/jobs/${id}/items/0`);
  const envelope = await assertEnvelope(t.app, bytes, 404, "not_found");
  assert.match(String(envelope.message), /failed/);
});

Deno.test("a result storage failing for a moment costs a try; one past its bound fails the item", async () => {
  let failures = 2;
  // The app's own store spill behind a front that fails as told.
  const backing: { real?: ObjectStorage } = {};
  const flaky: ObjectStorage = {
    kind: "store",
    put(key, bytes, meta) {
      if (failures-- > 0) {
        return Promise.reject(new ObjectStorageFailed("put", "SlowDown", "try again"));
      }
      if (key.includes("/1-")) return Promise.reject(new ObjectTooLarge(bytes.byteLength, 10));
      return backing.real!.put(key, bytes, meta);
    },
    get: (key) => backing.real!.get(key),
    delete: (key) => backing.real!.delete(key),
    urlFor: (key, options) => backing.real!.urlFor(key, options),
    check: () => backing.real!.check(),
    close: () => Promise.resolve(),
  };
  await using t = await createJobsApp({ deps: { objectStorage: flaky } });
  backing.real = createObjectStorage(t.deps);
  const { id } = await (await t.submit({ requests: [{ url: "https://example.com/0" }] })).json();
  const view = await t.until(id);
  assert.equal(view.items[0].status, "done", JSON.stringify(view.items[0]));
  assert.equal(view.items[0].tries, 3, "two failed writes, each a try");
  const big = await (await t.submit({
    requests: [{ url: "https://example.com/a" }, { url: "https://example.com/b" }],
  })).json();
  const bigView = await t.until(big.id);
  assert.equal(bigView.items[1].status, "failed");
  assert.equal(bigView.items[1].tries, 1);
  assert.equal(bigView.items[1].error!.code, "invalid_request");
  assert.equal(bigView.items[1].error!.status, 413);
  assert.match(bigView.items[1].error!.message, /over the 10-byte bound/);
});
