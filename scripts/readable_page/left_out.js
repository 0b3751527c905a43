/**
 * What the Markdown leaves out of a page, decided on a clone of the document with the live page
 * only read (its computed styles), never changed. The heuristic, in order:
 *
 * - Not text: scripts, styles, templates, embedded frames and objects, inline SVG and canvas,
 *   buttons and form fields other than checkboxes (a task list's boxes).
 * - Not shown: elements the live page does not display (computed `display: none`).
 * - Site chrome, as the accessibility tree maps landmarks: every nav, [role=navigation],
 *   [role=search], [role=complementary], [role=banner] and [role=contentinfo]; an aside that is not
 *   inside an article, aside, nav or section (one inside is a call-out of the text); a header or
 *   footer that is not inside an article, aside, main, nav or section (a section's header is its
 *   heading).
 * - Cookie and consent banners: the containers of common consent platforms by id or class; and any
 *   element whose id or class speaks of cookies or consent, or any dialog (dialog, role dialog or
 *   alertdialog, aria-modal) or fixed or sticky overlay whose text does, as long as it is small
 *   (under BANNER_MAX_CHARS characters) and holds no h1, main or article: a banner is short, and a
 *   page about cookies keeps its text.
 */

// A consent banner is a few sentences and buttons; anything longer is taken for content.
const BANNER_MAX_CHARS = 3_000;

const NOT_TEXT = "script, style, noscript, template, link, meta, iframe, frame, object, embed, " +
  "svg, canvas, button, select, textarea, input:not([type=checkbox])";

const ALWAYS_CHROME = "nav, [role=navigation], [role=search], [role=complementary], " +
  "[role=banner], [role=contentinfo]";

// Containers of consent platforms seen on many sites (OneTrust, Cookiebot, Cookie Consent,
// Usercentrics, Didomi, Quantcast, TrustArc, Osano, consentmanager, CookieYes, Complianz, Borlabs).
const CONSENT_CONTAINERS = "#onetrust-consent-sdk, #onetrust-banner-sdk, #CybotCookiebotDialog, " +
  ".cc-window, .cc-banner, #usercentrics-root, #didomi-host, .qc-cmp2-container, " +
  "#truste-consent-track, .osano-cm-window, #cmpbox, #cookie-law-info-bar, .cky-consent-container, " +
  "#cmplz-cookiebanner-container, #BorlabsCookieBox";

const DIALOGS = "dialog, [role=dialog], [role=alertdialog], [aria-modal=true]";
const CONSENT_WORDS = /cookie|consent|gdpr/i;
const HOLDS_CONTENT = "h1, main, article, [role=main]";

/** Removes from `clone` (a fresh clone of `live`) what is not the page's content. */
export function leaveOutNonContent(live, clone) {
  const dropped = [
    ...clone.querySelectorAll(NOT_TEXT),
    ...clone.querySelectorAll(ALWAYS_CHROME),
    ...clone.querySelectorAll(CONSENT_CONTAINERS),
  ];
  for (const element of clone.querySelectorAll("aside")) {
    if (!element.parentElement?.closest("article, aside, nav, section")) dropped.push(element);
  }
  for (const element of clone.querySelectorAll("header, footer")) {
    if (!element.parentElement?.closest("article, aside, main, nav, section, [role=main]")) {
      dropped.push(element);
    }
  }
  for (const element of clone.querySelectorAll("[id], [class]")) {
    const names = `${element.id} ${element.getAttribute("class") ?? ""}`;
    if (CONSENT_WORDS.test(names) && isBannerSized(element)) dropped.push(element);
  }
  for (const element of clone.querySelectorAll(DIALOGS)) {
    if (speaksOfConsent(element)) dropped.push(element);
  }
  dropped.push(...styleJudged(live, clone));
  // The root stays, whatever it is (an SVG document's root is an svg element).
  const roots = [clone.documentElement, clone.body];
  for (const element of dropped) if (!roots.includes(element)) element.remove();
}

/** Clone elements whose live twin is not displayed, or is a fixed overlay about consent. */
function styleJudged(live, clone) {
  if (!live.body || !clone.body) return [];
  const liveElements = live.body.querySelectorAll("*");
  const cloneElements = clone.body.querySelectorAll("*");
  // The clone was just taken, so both lists pair up; a difference means the page changed.
  if (liveElements.length !== cloneElements.length) return [];
  const view = live.defaultView;
  const judged = [];
  let skipping = null;
  for (let index = 0; index < liveElements.length; index++) {
    const element = liveElements[index];
    if (skipping?.contains(element)) continue;
    skipping = null;
    const style = view.getComputedStyle(element);
    const overlay = style.position === "fixed" || style.position === "sticky";
    if (style.display === "none" || (overlay && speaksOfConsent(cloneElements[index]))) {
      judged.push(cloneElements[index]);
      skipping = element;
    }
  }
  return judged;
}

function speaksOfConsent(element) {
  return isBannerSized(element) && CONSENT_WORDS.test(element.textContent ?? "");
}

function isBannerSized(element) {
  if (element.matches(`html, body, ${HOLDS_CONTENT}`)) return false;
  if (element.querySelector(HOLDS_CONTENT)) return false;
  return (element.textContent ?? "").length < BANNER_MAX_CHARS;
}
