/**
 * The capture options applied to a page, in the order the wait ladder (render.ts) calls them:
 * before navigation (viewport, selector syntax, styles, consent engine), after load
 * (waitForSelector), and right before the shot (consent answered, click, delay, the settle,
 * hiding and removal, full page or element area). A job without options goes through none of
 * this but the settle.
 */
import type { FiltersEngine } from "@ghostery/adblocker";
import type { Page } from "puppeteer-core";
import { PageFailure } from "./page_failure.ts";
import { adHidingCss } from "./adblock.ts";
import { CONSENT_FALLBACK_CSS, installConsentHandler, settleConsent } from "./consent.ts";
import {
  contentBottom,
  elementArea,
  fullPageArea,
  LAZY_HINTS_SCRIPT,
  nudgeLazyContent,
  type ShotArea,
} from "./full_page.ts";
import type { CaptureOptions } from "../request/options.ts";
import { isPuppeteerTimeout } from "./puppeteer.ts";
import { applyViewport } from "./viewport.ts";
import { clickElement, installStyles } from "./edits.ts";

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

/**
 * Before navigation: viewport (size, device, scale), a 400 for a selector that is not CSS, the
 * caller's styles, the consent engine.
 */
export async function prepareOptions(page: Page, options: CaptureOptions): Promise<void> {
  const selectors = [
    options.selector,
    options.waitForSelector,
    options.clickSelector,
    ...(options.hideSelectors ?? []),
    ...(options.removeSelectors ?? []),
  ].filter((s): s is string => typeof s === "string");
  if (selectors.length > 0) {
    const invalid = await page.evaluate(
      `(${INVALID_SELECTOR_SCRIPT})(${JSON.stringify(selectors)})`,
    );
    if (typeof invalid === "string") {
      throw new PageFailure({ kind: "invalid_selector", selector: invalid });
    }
  }
  await applyViewport(page, options);
  if (options.styles) await installStyles(page, options.styles);
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
    throw new PageFailure({ kind: "element_timeout", selector });
  }
}

export interface FinishContext {
  options: CaptureOptions;
  /** The ad filter engine, when blockAds is on. */
  engine?: FiltersEngine | null;
  /** The annoyance filter engine, when hideAnnoyances is on. */
  annoyances?: FiltersEngine | null;
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
 * Right before the shot: lets the consent engine finish, clicks clickSelector, waits delayMs
 * (ending at the budget at the latest), settles the page (or nudges lazy content of a full page),
 * hides and removes what was asked, and returns the area to shoot (null clip: the viewport, as for
 * a plain capture).
 */
export async function finishOptions(page: Page, context: FinishContext): Promise<ShotArea> {
  const { options, budgetEnd } = context;
  if (options.hideCookieBanners) await settleConsent(page, remaining(budgetEnd, CONSENT_BUDGET_MS));
  if (options.clickSelector) {
    await clickElement(page, { selector: options.clickSelector, budgetEnd });
  }
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
  const { options, engine, annoyances, budgetEnd } = context;
  if (options.fullPage && !context.settle) {
    await nudgeLazyContent(page, {
      scale: options.scale ?? 1,
      budgetMs: remaining(budgetEnd, NUDGE_BUDGET_MS),
    });
  }
  const css: string[] = [];
  if (engine && options.blockAds) css.push(await adHidingCss(engine, page));
  // The maintained lists' element rules, never hand-written selectors: they follow the widgets.
  if (annoyances && options.hideAnnoyances) css.push(await adHidingCss(annoyances, page));
  if (options.hideCookieBanners) css.push(CONSENT_FALLBACK_CSS);
  await addStyles(page, {
    css,
    hidden: options.hideSelectors ?? [],
    removed: options.removeSelectors ?? [],
  });
  const scale = options.scale ?? 1;
  if (options.selector) return await elementArea(page, { selector: options.selector, scale });
  // Removed elements leave the layout: the settled page's end moved up with them.
  if (height && options.removeSelectors?.length) height = await contentBottom(page);
  if (options.fullPage) return await fullPageArea(page, { scale, height });
  return VIEWPORT_AREA;
}

// Runs in the page. A constructed stylesheet needs no <style> element, so a page's Content
// Security Policy cannot refuse it; each selector is its own rule, so one selector cannot
// swallow the others. Hidden elements keep their space; removed ones leave the layout. Two
// frames, not a timer: a settled page's timers stand still.
const ADD_STYLES_SCRIPT = `async (css, hidden, removed) => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  const add = (selector, rule) => {
    try {
      sheet.insertRule(selector + " { " + rule + " }", sheet.cssRules.length);
    } catch {}
  };
  for (const selector of hidden) add(selector, "visibility: hidden !important;");
  for (const selector of removed) add(selector, "display: none !important;");
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
}`;

async function addStyles(
  page: Page,
  styles: { css: string[]; hidden: string[]; removed: string[] },
) {
  const { hidden, removed } = styles;
  const css = styles.css.filter(Boolean).join("\n");
  if (!css && hidden.length === 0 && removed.length === 0) return;
  const args = [css, hidden, removed].map((arg) => JSON.stringify(arg)).join(", ");
  await page.evaluate(`(${ADD_STYLES_SCRIPT})(${args})`);
}
