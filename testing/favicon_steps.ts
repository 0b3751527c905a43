/**
 * The favicon's boundary proofs both backends must pass (tests/capture/page/favicon_e2e_test.ts
 * for the local one, tests/capture/remote/favicon_e2e_test.ts for the remote one), with hostile
 * NO_PROXY and HTTP(S)_PROXY in this process's environment: no icon vector contacts a forbidden
 * host, the public icon is kept and requested once per capture (the browser's own icon request
 * never leaves), and an endless icon is read once and cut.
 */
import assert from "node:assert/strict";
import type { Capturer, PageMetadata } from "../lib/capture/types.ts";
import type { PageServer } from "./capture_fixtures.ts";
import {
  forbiddenFallbacks,
  forbiddenIconPages,
  htmlJobIcon,
  pageWith,
  PUBLIC_ICON,
} from "./favicon_vectors.ts";
import { Buffer } from "node:buffer";

export interface FaviconHarness {
  capturer: Capturer;
  /** The public site (faviconSite's routes), as the capturer reaches it at public.test. */
  site: PageServer;
  /** Bytes the endless icon handed out so far. */
  endless: { sent: number };
  /** Sets where the site's /favicon.ico redirects (null: it is the public icon). */
  setFallback(to: string | null): void;
  /** Port of the secret servers on 127.0.0.1 and ::1. */
  secretPort: number;
  /** Contacts at the secret servers and at the environment's proxy so far. */
  contacts(): { secret: number; envProxy: number };
}

const PUBLIC_ICON_DATA = `data:image/png;base64,${Buffer.from(PUBLIC_ICON).toString("base64")}`;

async function pageOf(harness: FaviconHarness, job: { url: string; html?: string }) {
  const result = await harness.capturer.capture({
    ...job,
    deviceType: "desktop",
    colorScheme: "light",
  });
  assert.ok(result.page, "the capture read the page's metadata");
  return result.page as PageMetadata;
}

/** Every icon vector aimed at the secret servers: left out, and no contact at all. */
export async function forbiddenIconSteps(t: Deno.TestContext, harness: FaviconHarness) {
  const secret = harness.secretPort;
  for (const [name, url] of Object.entries(forbiddenIconPages(secret))) {
    await t.step(`${name}: the icon is left out, nothing forbidden is contacted`, async () => {
      const page = await pageOf(harness, { url });
      assert.notEqual(page.favicon, null, "the page declared an icon");
      assert.equal(page.faviconData, null);
      assert.deepEqual(harness.contacts(), { secret: 0, envProxy: 0 });
    });
  }
  await t.step("the /favicon.ico fallback redirected to forbidden hosts", async () => {
    try {
      for (const to of forbiddenFallbacks(secret)) {
        harness.setFallback(to);
        const page = await pageOf(harness, { url: "http://public.test/fallback/" });
        assert.equal(page.favicon, "http://public.test/favicon.ico");
        assert.equal(page.faviconData, null, to);
      }
    } finally {
      harness.setFallback(null);
    }
    assert.deepEqual(harness.contacts(), { secret: 0, envProxy: 0 });
  });
  await t.step("an html document naming a loopback icon", async () => {
    const page = await pageOf(harness, { url: "about:blank", html: htmlJobIcon(secret) });
    assert.equal(page.favicon, `http://127.0.0.1:${secret}/secret.png`);
    assert.equal(page.faviconData, null);
    assert.deepEqual(harness.contacts(), { secret: 0, envProxy: 0 });
  });
}

/** The public icon: kept, and requested once per capture; the endless one read once and cut. */
export async function publicIconSteps(t: Deno.TestContext, harness: FaviconHarness) {
  const hits = (path: string) => harness.site.hits.get(path) ?? 0;
  let iconCaptures = 0;
  const fallbacksBefore = hits("/favicon.ico");
  await t.step("a public icon is kept, loaded once per capture", async () => {
    for (const rel of ["icon", "shortcut icon", "apple-touch-icon"]) {
      const before = hits("/icon.png");
      const page = await pageOf(harness, {
        url: pageWith(`<link rel="${rel}" href="/icon.png">`),
      });
      iconCaptures++;
      assert.equal(page.faviconData, PUBLIC_ICON_DATA, rel);
      assert.equal(hits("/icon.png") - before, 1, `${rel}: requested once`);
    }
  });
  await t.step("the origin's /favicon.ico is kept, loaded once", async () => {
    const before = hits("/favicon.ico");
    const page = await pageOf(harness, { url: "http://public.test/fallback/" });
    assert.equal(page.faviconData, PUBLIC_ICON_DATA);
    assert.equal(hits("/favicon.ico") - before, 1);
  });
  await t.step("an endless icon is requested once and cut at the cap", async () => {
    const before = hits("/endless.png");
    const page = await pageOf(harness, {
      url: pageWith(`<link rel="icon" href="/endless.png">`),
    });
    assert.equal(page.faviconData, null);
    assert.equal(hits("/endless.png") - before, 1, "requested once");
    console.log(`endless icon: ${harness.endless.sent} bytes handed out for one capture`);
  });
  await t.step("no late request of the browser's arrived since", async () => {
    // One more capture between: a browser icon request still on its way would have landed.
    await pageOf(harness, { url: pageWith(`<link rel="icon" href="/no-icon.png">`) });
    assert.equal(hits("/icon.png"), iconCaptures);
    // Only the fallback step's load: the browser asks for /favicon.ico on its own for a page
    // that declares no icon, or only an apple-touch-icon.
    assert.equal(hits("/favicon.ico") - fallbacksBefore, 1);
    assert.deepEqual(harness.contacts(), { secret: 0, envProxy: 0 });
  });
}
