import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { launchChromium } from "../../testing/editor_browser.ts";
import { startEditorInstance } from "../../testing/editor_instance.ts";
import {
  flag,
  isHidden,
  openEditor,
  text,
  typeInto,
  waitForStatus,
} from "../../testing/editor_page.ts";

/** Whether the page shows its working state: progress bar, Cancel, locked buttons. */
async function workingState(page: Page) {
  return {
    busy: await page.$eval("#stage", (el) => el.getAttribute("aria-busy")),
    progress: !(await isHidden(page, "#progress")),
    cancel: !(await isHidden(page, "#cancel")),
    captureLocked: await flag(page, "#capture-submit", "disabled"),
    postLocked: await flag(page, "#post-submit", "disabled"),
  };
}

const WORKING = {
  busy: "true",
  progress: true,
  cancel: true,
  captureLocked: true,
  postLocked: true,
};
const IDLE = {
  busy: "false",
  progress: false,
  cancel: false,
  captureLocked: false,
  postLocked: false,
};

Deno.test("a slow capture shows its progress and can be cancelled; a 429 counts down", async (t) => {
  // Two captures a minute: the slow one and the cancelled one use it up.
  const instance = await startEditorInstance({ RATE_LIMIT_PER_MINUTE: "2" });
  const browser = await launchChromium();
  try {
    const { page, watch } = await openEditor(browser, instance.origin);
    const url = instance.slowPageUrl.replaceAll(".", "\\.").replaceAll("/", "\\/");

    await t.step(
      "Ctrl+Enter in the URL field starts a capture that shows elapsed seconds",
      async () => {
        await page.type("#capture-url", instance.slowPageUrl);
        await page.keyboard.down("Control");
        await page.keyboard.press("Enter");
        await page.keyboard.up("Control");
        await page.waitForSelector('#stage[aria-busy="true"]');
        assert.deepEqual(await workingState(page), WORKING);
        assert.match(await text(page, "#status"), new RegExp(`^Capturing ${url}… \\d+ s$`));
        // The page takes seconds to answer, so the counter visibly moves past zero.
        await waitForStatus(page, new RegExp(`^Capturing ${url}… [1-9]\\d* s$`));
        assert.deepEqual(await workingState(page), WORKING);
        const done = await waitForStatus(page, /^Captured/);
        assert.equal(done, `Captured ${instance.slowPageUrl} (1920×1080, fresh).`);
        assert.deepEqual(await workingState(page), IDLE);
        assert.equal(await isHidden(page, "#canvas"), false);
      },
    );

    await t.step(
      "Cancel (from the keyboard) aborts the request and keeps the last image",
      async () => {
        const before = await page.$eval(
          "#canvas",
          (el) => (el as unknown as { width: number }).width,
        );
        await typeInto(page, "#capture-url", `${instance.slowPageUrl}?again`);
        watch.expectAbort("/api/screenshot");
        const aborted = new Promise<string>((resolve) =>
          page.on("requestfailed", (request) => resolve(request.failure()?.errorText ?? ""))
        );
        await page.click("#capture-submit");
        await page.waitForSelector("#cancel:not([hidden])");
        await waitForStatus(page, /^Capturing .*\?again… \d+ s$/);
        await page.focus("#cancel");
        await page.keyboard.press("Enter");
        assert.match(await waitForStatus(page, /^Cancelled/), /^Cancelled after \d+ s\.$/);
        assert.equal(await aborted, "net::ERR_ABORTED", "the browser aborted the fetch");
        assert.deepEqual(await workingState(page), IDLE);
        assert.equal(await isHidden(page, "#error"), true, "a cancel is not an error");
        const after = await page.$eval(
          "#canvas",
          (el) => (el as unknown as { width: number }).width,
        );
        assert.equal(after, before);
      },
    );

    await t.step("a 429 shows the envelope and counts Retry-After down", async () => {
      watch.expect(429, "/api/screenshot");
      const answered = page.waitForResponse((res) => res.url().endsWith("/api/screenshot"));
      await page.click("#capture-submit");
      const res = await answered;
      assert.equal(res.status(), 429);
      const retryAfter = Number(res.headers()["retry-after"]);
      assert.ok(retryAfter >= 1, `Retry-After: ${retryAfter}`);
      await page.waitForSelector("#error-wait:not([hidden])");
      assert.equal(await text(page, "#error-title"), (await res.json()).error);
      assert.match(await text(page, "#error-hint"), /the limit is 2 requests per minute/);
      const wait = /^You can capture again in (\d+) s\.$/.exec(await text(page, "#error-wait"));
      assert.ok(wait, "the countdown is shown");
      const first = Number(wait[1]);
      assert.ok(first <= retryAfter && first >= 1, `${first} s of ${retryAfter} s`);
      assert.equal(await flag(page, "#capture-submit", "disabled"), true);
      // It counts down while the page is open.
      await page.waitForFunction(
        `Number(/in (\\d+) s/.exec(document.getElementById("error-wait").textContent)?.[1]) < ${first}`,
        { timeout: 10_000 },
      );
      assert.equal(await flag(page, "#capture-submit", "disabled"), true);
      assert.equal(await flag(page, "#post-submit", "disabled"), false, "only capture waits");
    });

    assert.deepEqual(watch.problems, [], "no console error and no failed request");
    assert.deepEqual(watch.pending(), []);
  } finally {
    await browser.close();
    await instance.close();
  }
});
