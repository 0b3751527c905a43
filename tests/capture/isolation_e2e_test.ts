/**
 * Isolation between captures, on both backends: a page captured first leaves a cookie, local and
 * session storage, an IndexedDB database, a CacheStorage entry, a service worker, a session
 * history entry and an HTTP-cacheable response; a page of the same origin captured next finds none of them.
 */
import assert from "node:assert/strict";
import { createChromiumCapturer } from "../../lib/capture/local/capturer.ts";
import { createRemoteCapturer } from "../../lib/capture/remote/capturer.ts";
import type { Capturer } from "../../lib/capture/types.ts";
import { createMemoryLogger } from "../../lib/log.ts";
import { type Route, servePages } from "../../testing/capture_fixtures.ts";
import { startRemoteChromium } from "../../testing/remote_chromium.ts";

type Findings = Record<string, string>;

const page = (script: string) =>
  new Response(
    `<!doctype html><body style="margin:0;background:#fff">
<script>(async () => { ${script} })().catch((e) => report({ error: String(e) }));
function report(body) {
  return fetch("/report", { method: "POST", body: JSON.stringify(body) });
}</script>
<img src="/after-report" alt="">`,
    { headers: { "content-type": "text/html" } },
  );

// Looks for each of them; run after LEAVE in the same document, it sees every one (the control).
const LOOK = `
  const databases = indexedDB.databases ? await indexedDB.databases() : [];
  const registrations = await navigator.serviceWorker.getRegistrations();
  await fetch("/cacheable");
  const found = {
    cookie: document.cookie.includes("leak") ? "seen" : "absent",
    localStorage: localStorage.getItem("leak") ? "seen" : "absent",
    sessionStorage: sessionStorage.getItem("leak") ? "seen" : "absent",
    indexedDB: databases.some((d) => d.name === "leak") ? "seen" : "absent",
    cacheStorage: (await caches.keys()).includes("leak") ? "seen" : "absent",
    serviceWorker: registrations.length > 0 ? "seen" : "absent",
    // A reused tab would carry the earlier capture's session history. A fresh page holds two
    // entries (the prepared about:blank and this document); LEAVE adds three more.
    history: history.length > 3 ? "seen" : "absent",
  };
`;

// Leaves one of everything a browser context keeps, then reports that it did.
const LEAVE = `
  document.cookie = "leak=1; max-age=3600; path=/";
  localStorage.setItem("leak", "1");
  sessionStorage.setItem("leak", "1");
  await new Promise((resolve, reject) => {
    const open = indexedDB.open("leak", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("things");
    open.onsuccess = () => {
      const tx = open.result.transaction("things", "readwrite");
      tx.objectStore("things").put("1", "leak");
      tx.oncomplete = resolve;
      tx.onerror = reject;
    };
    open.onerror = reject;
  });
  await (await caches.open("leak")).put("/leak", new Response("1"));
  const registration = await navigator.serviceWorker.register("/sw.js");
  await navigator.serviceWorker.ready;
  await fetch("/cacheable");
  for (const step of ["#one", "#two", "#three"]) history.pushState(null, "", step);
  ${LOOK}
  await report({ left: registration.active ? "all" : "no worker", ...found });
`;

/** The origin's pages, and each capture's report (the image waits for it, so the shot does). */
function isolationSite() {
  const reports: Findings[] = [];
  let reported = Promise.withResolvers<void>();
  const routes: Record<string, Route> = {
    "/leave": () => page(LEAVE),
    "/probe": () => page(`${LOOK} await report(found);`),
    "/sw.js": () =>
      new Response(`self.addEventListener("fetch", () => {});`, {
        headers: { "content-type": "text/javascript" },
      }),
    "/cacheable": () =>
      new Response("cached for an hour", { headers: { "cache-control": "max-age=3600" } }),
    "/report": async (request) => {
      reports.push(await request.json());
      reported.resolve();
      return new Response("ok");
    },
    "/after-report": async () => {
      await Promise.race([reported.promise, new Promise((r) => setTimeout(r, 5_000))]);
      reported = Promise.withResolvers<void>();
      return new Response(null, { status: 204 });
    },
  };
  const pages = servePages(routes);
  return { pages, reports };
}

/** Captures /leave then /probe with `capturer`, one step per kind of state. */
async function assertIsolated(t: Deno.TestContext, capturer: Capturer) {
  const { pages, reports } = isolationSite();
  const job = (path: string) => ({
    url: `${pages.origin}${path}`,
    deviceType: "desktop" as const,
    colorScheme: "light" as const,
  });
  try {
    await capturer.capture(job("/leave"));
    const { left, ...control } = reports[0] ?? {};
    assert.equal(
      left,
      "all",
      `the first capture left all of its state: ${JSON.stringify(reports[0])}`,
    );
    // The control: inside the context that left them, the probe sees every one.
    assert.ok(Object.values(control).every((v) => v === "seen"), JSON.stringify(control));
    await capturer.capture(job("/probe"));
    const found = reports[1];
    assert.ok(found && !("error" in found), `the probe ran: ${JSON.stringify(found)}`);
    for (const kind of Object.keys(found)) {
      await t.step(`${kind} of an earlier capture is not seen`, () => {
        assert.equal(found[kind], "absent");
      });
    }
    await t.step("an HTTP-cached response of an earlier capture is fetched again", () => {
      assert.equal(pages.hits.get("/cacheable"), 2);
    });
  } finally {
    await pages.close();
  }
}

Deno.test("local captures share no state: each starts from an empty browser context", async (t) => {
  const capturer = createChromiumCapturer({
    timeoutMs: 10_000,
    allowPrivateNetwork: true,
    log: createMemoryLogger(),
  });
  try {
    await assertIsolated(t, capturer);
  } finally {
    await capturer.close();
  }
});

Deno.test("remote captures share no state: each starts from an empty browser context", async (t) => {
  await using remote = await startRemoteChromium();
  const capturer = createRemoteCapturer({
    endpoints: [remote.endpoint],
    timeoutMs: 10_000,
    allowPrivateNetwork: true,
    log: createMemoryLogger(),
  });
  try {
    await assertIsolated(t, capturer);
  } finally {
    await capturer.close();
  }
});
