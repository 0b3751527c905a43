/**
 * The capture options applied to a page, in the order the wait ladder (render.ts) calls them:
 * before navigation (scale, selector syntax, consent engine), after load (waitForSelector),
 * and right before the shot (consent answered, delay, the settle, hiding, full page or element
 * area). A job without options goes through none of this but the settle.
 */
import type { FiltersEngine } from "@ghostery/adblocker";
import type { Page } from "puppeteer-core";
import { ApiError } from "../../errors.ts";
import { adHidingCss } from "./adblock.ts";
import { CONSENT_FALLBACK_CSS, installConsentHandler, settleConsent } from "./consent.ts";
import {
  elementArea,
  fullPageArea,
  LAZY_HINTS_SCRIPT,
  nudgeLazyContent,
  type ShotArea,
} from "./full_page.ts";
import type { CaptureOptions } from "../request/options.ts";
import { isPuppeteerTimeout } from "./failures.ts";

// Consent dialogs get at most this long to be answered (within the capture budget).
const CONSENT_BUDGET_MS = 3_000;
// Scrolling through a long page for lazy content, and waiting for its images.
const NUDGE_BUDGET_MS = 3_000;

const VIEWPORT_AREA: ShotArea = { clip: null, truncated: false };

// Runs in the page: the first selector that is not valid CSS, or null.
const INVALID_SELECTOR_SCRIPT = `(selectors) => {
  const probe = document.createDocumentFragment();
  for (const selector of selectors) {
    try { probe.querySelector(selector); } catch { return selector; }
  }
  return null;
}`;

/** Before navigation: device scale, a 400 for a selector that is not CSS, the consent engine. */
export async function prepareOptions(page: Page, options: CaptureOptions): Promise<void> {
  const selectors = [
    options.selector,
    options.waitForSelector,
    ...(options.hideSelectors ?? []),
  ].filter((s): s is string => typeof s === "string");
  if (selectors.length > 0) {
    const invalid = await page.evaluate(
      `(${INVALID_SELECTOR_SCRIPT})(${JSON.stringify(selectors)})`,
    );
    if (typeof invalid === "string") {
      throw new ApiError(400, "invalid_request", "A selector is not valid CSS.", {
        hint: `"${invalid}" is not a CSS selector the browser accepts (as in ` +
          "document.querySelector).",
      });
    }
  }
  const viewport = page.viewport();
  if (options.scale && options.scale !== 1 && viewport) {
    await page.setViewport({ ...viewport, deviceScaleFactor: options.scale });
  }
  if (options.hideCookieBanners) await installConsentHandler(page);
  // A settled capture installs its own hints (settle.ts); the scroll-through needs these.
  if (options.fullPage && options.settle === false) {
    await page.evaluateOnNewDocument(LAZY_HINTS_SCRIPT);
  }
}

/** After load: waits for waitForSelector to match a visible element; 408 past the budget. */
export async function waitForOption(
  page: Page,
  options: CaptureOptions,
  budgetEnd: number,
): Promise<void> {
  const selector = options.waitForSelector;
  if (!selector) return;
  const timeout = Math.max(1, Math.round(budgetEnd - performance.now()));
  try {
    await page.waitForSelector(selector, { visible: true, timeout });
  } catch (error) {
    if (!isPuppeteerTimeout(error)) throw error;
    throw new ApiError(408, "upstream_timeout", "The awaited element did not appear in time.", {
      hint: `No visible element matched "${selector}" within the capture budget ` +
        "(CAPTURE_TIMEOUT_MS); check the selector, or capture without waitForSelector.",
    });
  }
}

export interface FinishContext {
  options: CaptureOptions;
  /** The ad filter engine, when blockAds is on. */
  engine?: FiltersEngine | null;
  /** performance.now() at which the capture budget ends. */
  budgetEnd: number;
  /**
   * The settle (settle.ts), run after the consent answer and delayMs and before the hiding
   * stylesheet; it returns the full page's height when it grew the viewport. Absent with
   * `settle: false`: a full page is then scrolled through instead.
   */
  settle?: () => Promise<{ height: number | null }>;
}

const remaining = (budgetEnd: number, cap: number) =>
  Math.max(0, Math.min(cap, budgetEnd - performance.now()));

/**
 * Right before the shot: lets the consent engine finish, waits delayMs (ending at the budget
 * at the latest), settles the page (or nudges lazy content of a full page), hides what was
 * asked, and returns the area to shoot (null clip: the viewport, as for a plain capture).
 */
export async function finishOptions(page: Page, context: FinishContext): Promise<ShotArea> {
  const { options, budgetEnd } = context;
  if (options.hideCookieBanners) await settleConsent(page, remaining(budgetEnd, CONSENT_BUDGET_MS));
  if (options.delayMs) {
    const wait = remaining(budgetEnd, options.delayMs);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const settled = context.settle ? await context.settle() : null;
  try {
    return await prepareShot(page, context, settled?.height);
  } catch (error) {
    // Some consent platforms reload the page once the choice is made: shoot the new document.
    if (!/Execution context was destroyed|Cannot find context/.test(String(error))) throw error;
    await page.waitForNavigation({
      waitUntil: "load",
      timeout: Math.max(1, remaining(budgetEnd, CONSENT_BUDGET_MS)),
    }).catch(() => {});
    return await prepareShot(page, context);
  }
}

/**
 * Nudges a full page that was not settled, adds the hiding stylesheet and measures the area to
 * shoot (`height`: the full page's, when the settle measured it).
 */
async function prepareShot(
  page: Page,
  context: FinishContext,
  height?: number | null,
): Promise<ShotArea> {
  const { options, engine, budgetEnd } = context;
  if (options.fullPage && !context.settle) {
    await nudgeLazyContent(page, {
      scale: options.scale ?? 1,
      budgetMs: remaining(budgetEnd, NUDGE_BUDGET_MS),
    });
  }
  const css: string[] = [];
  if (engine && options.blockAds) css.push(await adHidingCss(engine, page));
  if (options.hideCookieBanners) css.push(CONSENT_FALLBACK_CSS);
  await addStyles(page, { css, hidden: options.hideSelectors ?? [] });
  const scale = options.scale ?? 1;
  if (options.selector) return await elementArea(page, { selector: options.selector, scale });
  if (options.fullPage) return await fullPageArea(page, { scale, height });
  return VIEWPORT_AREA;
}

// Runs in the page. A constructed stylesheet needs no <style> element, so a page's Content
// Security Policy cannot refuse it; each hidden selector is its own rule, so one selector
// cannot swallow the others. Two frames, not a timer: a settled page's timers stand still.
const ADD_STYLES_SCRIPT = `async (css, hidden) => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  for (const selector of hidden) {
    try {
      sheet.insertRule(selector + " { visibility: hidden !important; }", sheet.cssRules.length);
    } catch {}
  }
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
}`;

async function addStyles(page: Page, styles: { css: string[]; hidden: string[] }) {
  const css = styles.css.filter(Boolean).join("\n");
  if (!css && styles.hidden.length === 0) return;
  await page.evaluate(
    `(${ADD_STYLES_SCRIPT})(${JSON.stringify(css)}, ${JSON.stringify(styles.hidden)})`,
  );
}
