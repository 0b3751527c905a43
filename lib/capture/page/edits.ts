/**
 * Changes a capture makes to the page it was asked to shoot: the caller's CSS (added as each
 * document starts, so the settle waits for what it changes), the caller's scripts and one click
 * before the shot.
 */
import type { Page } from "puppeteer-core";
import { PageFailure } from "./page_failure.ts";
import { withTimeout } from "../../timeout.ts";

// After the click: long enough for a panel's transition or a quick fetch, short next to the
// capture budget (and never past it).
const CLICK_SETTLE_MS = 500;
// The click itself (scrolling the element into view, the mouse events) is bounded as well.
const CLICK_TIMEOUT_MS = 3_000;

// Runs in every document of the page before its scripts, main frame only (frames of other
// sites were not asked for). A constructed stylesheet needs no <style> element, so the page's
// Content Security Policy cannot refuse it.
const STYLES_SCRIPT = `(css) => {
  if (window !== window.top) return;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}`;

/** Before navigation: `css` applies to every document the page loads from now on. */
export async function installStyles(page: Page, css: string): Promise<void> {
  await page.evaluateOnNewDocument(`(${STYLES_SCRIPT})(${JSON.stringify(css)})`);
}

// What puppeteer names its own errors; a script's are named by the page (Error, TypeError...).
const PROTOCOL_ERRORS = new Set(["ProtocolError", "TargetCloseError", "TimeoutError"]);
// How much of a script's error the answer repeats: its message, not a page's worth of stack.
const SCRIPT_MESSAGE_CHARS = 300;

/**
 * Runs each script in the page's main world, in order, as the DevTools console would (through
 * the protocol, so the page's Content Security Policy does not refuse it): a script whose last
 * expression is a promise is awaited. What a script evaluates to is dropped unread (a DOM node, a
 * cycle). A script that navigates is waited for to load, and the next one runs in the new page.
 */
export async function runScripts(
  page: Page,
  options: { scripts: readonly string[]; budgetEnd: number },
): Promise<void> {
  const { scripts, budgetEnd } = options;
  for (const [index, script] of scripts.entries()) {
    const left = () => Math.max(1, budgetEnd - performance.now());
    try {
      const result = await withTimeout(
        page.evaluateHandle(script),
        left(),
        () => new PageFailure({ kind: "script_timeout", index }),
      );
      await result.dispose().catch(() => {});
    } catch (error) {
      if (error instanceof PageFailure) throw error;
      // The script's own navigation took its execution context away: not its failure.
      if (/context was destroyed|detached/i.test(String(error))) {
        await page.waitForFunction("document.readyState === 'complete'", {
          polling: 50,
          timeout: left(),
        }).catch(() => {});
        continue;
      }
      // The browser's failures (a page or browser gone, a protocol timeout) are not the script's.
      if (PROTOCOL_ERRORS.has((error as Error)?.name)) throw error;
      throw new PageFailure({ kind: "script_error", index, message: scriptMessage(error) });
    }
  }
}

/** The page's words for a script's failure (its error's class and message), as a console says them. */
function scriptMessage(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error))
    .replace(/^Evaluation failed: /, "").split("\n")[0].trim();
  const name = error instanceof Error ? error.name : "";
  const message = name && !text.startsWith(name) ? `${name}: ${text}` : text;
  return message.length > SCRIPT_MESSAGE_CHARS
    ? `${message.slice(0, SCRIPT_MESSAGE_CHARS)}…`
    : message || "an error without a message";
}

/** A clickSelector with nothing visible to click. */
function nothingToClick(selector: string): PageFailure {
  return new PageFailure({ kind: "nothing_to_click", selector });
}

/**
 * Clicks the first element matching `selector` once (a real mouse click at its centre), waits
 * a short settle, and scrolls back to where the page was, so a viewport shot shows the same
 * part of the page. A PageFailure when nothing visible matches.
 */
export async function clickElement(
  page: Page,
  options: { selector: string; budgetEnd: number },
): Promise<void> {
  const { selector, budgetEnd } = options;
  const handle = await page.$(selector);
  if (!handle) throw nothingToClick(selector);
  try {
    const scroll = await page.evaluate("[scrollX, scrollY]") as [number, number];
    const left = () => Math.max(1, budgetEnd - performance.now());
    try {
      await withTimeout(
        handle.click(),
        Math.min(CLICK_TIMEOUT_MS, left()),
        () => nothingToClick(selector),
      );
    } catch (error) {
      // puppeteer's words for an element without a box to click.
      if (/not visible|not an HTMLElement|no box/i.test(String(error))) {
        throw nothingToClick(selector);
      }
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(CLICK_SETTLE_MS, left())));
    // The click may have navigated: then there is nothing to scroll back.
    await page.evaluate(`scrollTo({ left: ${scroll[0]}, top: ${scroll[1]}, behavior: "instant" })`)
      .catch(() => {});
  } finally {
    await handle.dispose().catch(() => {});
  }
}
