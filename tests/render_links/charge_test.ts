import assert from "node:assert/strict";
import { createRenderApp } from "../../testing/render_app.ts";
import { assertEnvelope } from "../../testing/envelope.ts";
import { eventually } from "../../testing/wait.ts";

Deno.test("a render counts against the per-IP limit; a cache hit does not", async () => {
  const t = await createRenderApp({ env: { RATE_LIMIT_PER_MINUTE: "2" } });
  try {
    const [a, b, c] = await Promise.all(
      ["a", "b", "c"].map((page) => t.link({ url: `https://example.com/${page}` })),
    );
    const status = async (url: string) => {
      const res = await t.render(url);
      await res.body?.cancel();
      return [res.status, res.headers.get("x-cache"), res.headers.get("x-ratelimit-remaining")];
    };
    assert.deepEqual(await status(a), [200, "miss", "1"]);
    for (let i = 0; i < 5; i++) assert.deepEqual(await status(a), [200, "hit", null]);
    assert.deepEqual(await status(b), [200, "miss", "0"]);
    // The client's renders are used up: a new page is refused, the cached ones still answer.
    await assertEnvelope(t.app, await t.render(c), 429, "rate_limited");
    assert.deepEqual(await status(a), [200, "hit", null]);
    assert.deepEqual(await status(b), [200, "hit", null]);
    assert.equal(t.capture.jobs.length, 2);
    // POST /api/screenshot counts every request, hits included.
    const posted = await t.shoot({ url: "https://example.com/a" });
    await assertEnvelope(t.app, posted, 429, "rate_limited");
    // A minute later the window has moved on.
    t.clock.advance(60_000);
    assert.deepEqual(await status(c), [200, "miss", "1"]);
  } finally {
    await t.close();
  }
});

Deno.test("a request joining a render in progress counts: only the cache is free", async () => {
  const t = await createRenderApp({
    env: { RATE_LIMIT_PER_MINUTE: "3", MAX_CONCURRENT_CAPTURES: "1" },
  });
  try {
    t.capture.hold();
    const link = await t.link({ url: "https://example.com/slow" });
    const first = t.render(link);
    // Only once the render is held in the capturer: released earlier, it would be cached
    // before the second request looked.
    await eventually(() => t.capture.jobs.length === 1, "the first render to start");
    // The same link joins the render in progress: not in the cache yet, so it is counted.
    const joined = t.render(link);
    await eventually(() => t.deps.screenshots.stats().waiting === 2, "both on one flight");
    t.capture.release();
    for (const res of await Promise.all([first, joined])) {
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    const next = await t.render(await t.link({ url: "https://example.com/next" }));
    assert.equal(next.headers.get("x-ratelimit-remaining"), "0");
    await next.body?.cancel();
  } finally {
    await t.close();
  }
});
