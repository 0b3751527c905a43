/**
 * The blockAds filter lists: fetched by the service from a loopback server, kept in the store
 * for 24 h (a restart does not fetch again), refetched when stale, and a failing upstream falls
 * back to the stored copy; an engine is only there once some list loaded.
 */
import assert from "node:assert/strict";
import { Request as FilterRequest } from "@ghostery/adblocker";
import { createAdFilters, LIST_FRESH_MS } from "../../lib/capture/filter_lists.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { createKvStore } from "../../lib/store/deno_kv.ts";
import { manualClock } from "../../testing/app.ts";

function serveList() {
  const state = { hits: 0, status: 200, body: "||ads.example^\n##.ad-slot\n" };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    state.hits++;
    return new Response(state.body, { status: state.status });
  });
  return {
    state,
    url: `http://127.0.0.1:${server.addr.port}/list.txt`,
    close: () => server.shutdown(),
  };
}

const blocks = (filters: ReturnType<typeof createAdFilters>, url: string) =>
  filters.engine()?.match(FilterRequest.fromRawDetails({
    url,
    sourceUrl: "https://news.example/",
    type: "script",
  })).match ?? false;

Deno.test("lists are fetched once, reused from the store for 24 h, then refreshed", async () => {
  const list = serveList();
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const store = createKvStore(kv, clock);
  const make = () =>
    createAdFilters({ urls: [list.url], store, log: createMemoryLogger(), clock, fetch });
  try {
    const first = make();
    assert.equal(first.engine(), null, "nothing before the first load");
    await first.refresh();
    assert.equal(list.state.hits, 1);
    assert.equal(blocks(first, "https://ads.example/tag.js"), true);
    assert.equal(blocks(first, "https://cdn.example/app.js"), false);

    const restarted = make();
    await restarted.refresh();
    assert.equal(list.state.hits, 1, "a fresh stored copy is not fetched again");
    assert.equal(blocks(restarted, "https://ads.example/tag.js"), true);

    clock.advance(LIST_FRESH_MS + 1);
    list.state.body = "||tracker.example^\n";
    await restarted.refresh();
    assert.equal(list.state.hits, 2, "a stale copy is fetched again");
    assert.equal(blocks(restarted, "https://tracker.example/t.js"), true);
    assert.equal(
      blocks(restarted, "https://ads.example/tag.js"),
      false,
      "the new list replaced it",
    );
  } finally {
    kv.close();
    await list.close();
  }
});

Deno.test("an upstream failure keeps the stored copy; no copy at all leaves no engine", async () => {
  const list = serveList();
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const store = createKvStore(kv, clock);
  const log = createMemoryLogger();
  try {
    const filters = createAdFilters({ urls: [list.url], store, log, clock, fetch });
    await filters.refresh();
    clock.advance(LIST_FRESH_MS + 1);
    list.state.status = 500;
    await filters.refresh();
    assert.equal(list.state.hits, 2);
    assert.equal(blocks(filters, "https://ads.example/tag.js"), true, "the stale copy serves");
    const warning = log.lines.find((l) => l.msg === "filter list could not be fetched");
    assert.equal(warning?.usingStoredCopy, true);

    const fresh = createAdFilters({
      urls: [`${list.url}?other`],
      store,
      log,
      clock,
      fetch,
    });
    await fresh.refresh();
    assert.equal(fresh.engine(), null, "no list ever loaded: blockAds answers 503");
    assert.ok(
      log.lines.some((l) =>
        l.msg === "no filter list is loaded; blockAds answers 503 until one is"
      ),
    );
  } finally {
    kv.close();
    await list.close();
  }
});

Deno.test("a list larger than the limit is refused, not buffered", async () => {
  const huge = "x".repeat(17 * 1024 * 1024);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(huge),
  );
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const log = createMemoryLogger();
  try {
    const filters = createAdFilters({
      urls: [`http://127.0.0.1:${server.addr.port}/`],
      store: createKvStore(kv, clock),
      log,
      clock,
      fetch,
    });
    await filters.refresh();
    assert.equal(filters.engine(), null);
    const warning = log.lines.find((l) => l.msg === "filter list could not be fetched");
    assert.match(String(warning?.reason), /larger than/);
  } finally {
    kv.close();
    await server.shutdown();
  }
});
