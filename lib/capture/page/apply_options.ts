/**
 * The capture options applied to a page, one leaf per step of the render (render.ts calls them
 * in order; none calls back): before navigation (selector syntax, viewport, styles, consent
 * engine), after load (waitForSelector), before the settle (consent answered, click, delay) and
 * before the shot (the hiding stylesheet). A job without options goes through none of them.
 */
import type { FiltersEngine } from "@ghostery/adblocker";
import type { Page } from "puppeteer-core";
import { PageFailure } from "./page_failure.ts";
import { adHidingCss } from "./adblock.ts";
import { CONSENT_FALLBACK_CSS, installConsentHandler, settleConsent } from "./consent.ts";
import type { CaptureOptions } from "../request/options.ts";
import { isPuppeteerTimeout } from "./puppeteer.ts";
import { applyViewport } from "./viewport.ts";
import { clickElement, installStyles, runScripts } from "./edits.ts";

// Consent dialogs get at most this long to be answered (within the capture budget).
const CONSENT_BUDGET_MS = 3_000;

/** What is left of the capture budget, at most `cap` ms. */
export const remaining = (budgetEnd: number, cap: number) =>
  Math.max(0, Math.min(cap, budgetEnd - performance.now()));

// Runs in the page: the first selector that is not valid CSS, or null.
const INVALID_SELECTOR_SCRIPT = `(selectors) => {
  const probe = document.createDocumentFragment();
  for (const selector of selectors) {
    try { probe.querySelector(selector); } catch { return selector; }
  }
  return null;
}`;

/**
 * Before navigation: a PageFailure for a selector that is not CSS, then the viewport (size,
 * device, scale), the caller's styles and the consent engine.
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

/**
 * Before the settle: lets the consent engine finish, runs the caller's scripts, clicks
 * clickSelector, waits delayMs (ending at the budget at the latest).
 */
export async function interact(
  page: Page,
  options: CaptureOptions,
  budgetEnd: number,
): Promise<void> {
  if (options.hideCookieBanners) await settleConsent(page, remaining(budgetEnd, CONSENT_BUDGET_MS));
  if (options.scripts?.length) await runScripts(page, { scripts: options.scripts, budgetEnd });
  if (options.clickSelector) {
    await clickElement(page, { selector: options.clickSelector, budgetEnd });
  }
  if (options.delayMs) {
    const wait = remaining(budgetEnd, options.delayMs);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Some consent platforms reload the page once the choice is made: wait for the new document. */
export async function awaitConsentReload(page: Page, budgetEnd: number): Promise<void> {
  await page.waitForNavigation({
    waitUntil: "load",
    timeout: Math.max(1, remaining(budgetEnd, CONSENT_BUDGET_MS)),
  }).catch(() => {});
}

export interface HidingRules {
  options: CaptureOptions;
  /** The ad filter engine, when blockAds is on. */
  engine?: FiltersEngine | null;
  /** The annoyance filter engine, when hideAnnoyances is on. */
  annoyances?: FiltersEngine | null;
}

/** Right before the shot: hides ads, annoyances, consent leftovers and hideSelectors, removes removeSelectors. */
export async function hideElements(page: Page, rules: HidingRules): Promise<void> {
  const { options, engine, annoyances } = rules;
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
