/**
 * hideCookieBanners: DuckDuckGo's autoconsent engine and its maintained rules run in every
 * document of the capture and answer consent dialogs with "reject" where the platform allows
 * it; whatever is still showing when the capture is shot is hidden by a stylesheet naming the
 * common platforms' containers.
 */
import type { Page } from "puppeteer-core";
import rules from "@duckduckgo/autoconsent/rules/compact-rules.json" with { type: "json" };
import AUTOCONSENT_SCRIPT from "./vendor/autoconsent_page.js";

// autoconsent looks for a platform again every 500 ms: a few tries cover a platform script
// that arrives with the page without making a page that has none wait long.
const DETECT_RETRIES = 4;
// A page where nothing was found after this long is taken as having no dialog (the cosmetic
// fallback still hides one that appears later).
const NOTHING_FOUND_MS = 1_200;
const POLL_MS = 50;

const CONFIG = {
  enabled: true,
  autoAction: "optOut",
  disabledCmps: [],
  // Known dialogs are made transparent at once, so the page does not flash one in a later frame.
  enablePrehide: true,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  detectRetries: DETECT_RETRIES,
  // Injected into the page's own world: rule snippets run inline, no round trip to the service.
  isMainWorld: true,
  prehideTimeout: 2_000,
  enableHeuristicDetection: false,
  enablePopupMutationObserver: false,
  visualTest: false,
  logs: {
    lifecycle: false,
    rulesteps: false,
    detectionsteps: false,
    evals: false,
    errors: false,
    messages: false,
    waits: false,
  },
};

// Runs in every document before its scripts: the state the service polls, then the engine.
const SETUP = `(() => {
  if (window.__shotlineConsentSetup) return;
  const state = { lifecycle: "loading", cmps: [], optOut: null, done: false, since: Date.now() };
  Object.defineProperty(window, "__shotlineConsent", { value: state });
  window.__shotlineConsentSetup = {
    config: ${JSON.stringify(CONFIG)},
    rules: { autoconsent: [], compact: ${JSON.stringify(rules)} },
    send: async (message) => {
      if (message.type === "report") state.lifecycle = message.state.lifecycle;
      else if (message.type === "cmpDetected") state.cmps.push(message.cmp);
      else if (message.type === "optOutResult") state.optOut = message.result;
      else if (message.type === "autoconsentDone") state.done = true;
    },
  };
})();
${AUTOCONSENT_SCRIPT}`;

const FINISHED = new Set([
  "nothingDetected",
  "optOutSucceeded",
  "optOutFailed",
  "optInSucceeded",
  "optInFailed",
  "done",
]);

/** Injects the consent engine into every document the page loads from now on. */
export async function installConsentHandler(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(SETUP);
}

interface ConsentState {
  lifecycle: string;
  cmps: string[];
  optOut: boolean | null;
  done: boolean;
}

/**
 * Waits (at most `budgetMs`) until the engine has answered the dialog it found, or has found
 * none; returns what it saw, for the log.
 */
export async function settleConsent(page: Page, budgetMs: number): Promise<ConsentState | null> {
  const started = performance.now();
  let state: ConsentState | null = null;
  while (performance.now() - started < budgetMs) {
    state = await page.evaluate("window.__shotlineConsent ?? null").catch(() => null) as
      | ConsentState
      | null;
    if (!state) return null;
    if (state.done || FINISHED.has(state.lifecycle)) return state;
    const searching = state.cmps.length === 0;
    if (searching && performance.now() - started >= NOTHING_FOUND_MS) return state;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return state;
}

/**
 * Containers of the common consent platforms and their page locks, hidden when the engine did
 * not close them (a dialog in a cross-origin frame, a platform version the rules do not know).
 */
export const CONSENT_FALLBACK_CSS = `
#onetrust-consent-sdk, #onetrust-banner-sdk, #onetrust-pc-sdk, .onetrust-pc-dark-filter,
#CybotCookiebotDialog, #CybotCookiebotDialogBodyUnderlay, #cookiebanner, #CookieBanner,
#didomi-host, #didomi-popup, .didomi-popup-backdrop, #didomi-notice,
#qc-cmp2-container, .qc-cmp2-container, .qc-cmp-ui-container, #qcCmpUi,
#truste-consent-track, #truste-consent-content, .truste_box_overlay, .truste_overlay,
#consent_blackbar, #trustarc-banner-overlay, iframe[src*="consent.trustarc.com"],
#usercentrics-root, #usercentrics-cmp-ui, aside#usercentrics-cmp-ui,
[id^="sp_message_container_"], .sp_veil, #cmpbox, #cmpbox2, .cmpboxBG,
#iubenda-cs-banner, .iubenda-cs-overlay, #cookie-law-info-bar, .cky-consent-container,
.cky-overlay, #cmplz-cookiebanner-container, .cc-window, .cc-banner, #cc-main,
#klaro, .klaro .cookie-modal, #CookieConsent, .cookie-consent-banner
{ display: none !important; }
body.didomi-popup-open, html.didomi-popup-open, body.qc-cmp-ui-showing,
html.sp-message-open, body.onetrust-consent-sdk-open, html.cmpbox-open
{ overflow: auto !important; position: static !important; }
`;
