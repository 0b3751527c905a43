/**
 * The findings' page script: what the page shows right before the shot, read once (after the
 * options hid what they hide) and bounded, as plain signals; findings.ts decides from them. The
 * signals and their limits are in docs/capture-report.md.
 */
import type { Page } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";

// The script reads a settled page's layout once; past this it is skipped (the report then has
// no page findings), so a page that blocks its main thread never holds the shot.
const SIGNALS_BUDGET_MS = 1_000;

/** What the page script sees, the input of decideFindings. */
export interface FindingSignals {
  title: string;
  /** The first visible h1's text. */
  heading: string;
  /** Length of the visible text (open shadow roots included when the body has little). */
  textLength: number;
  /** The start of the visible text, lower-cased, for the phrases of findings.ts. */
  text: string;
  /** Challenge elements and scripts found (selectors as named in CHALLENGE_MARKERS). */
  challengeMarkers: string[];
  /** Visible images, SVGs, canvases, videos and frames of at least 48x48 px, or a background. */
  media: number;
  /** Share (0 to 1) of a 5x5 grid of viewport points whose top element sits in a fixed layer. */
  coveredShare: number;
  /** Share of those points painted by a box of its own (a colour or image unlike the page's). */
  paintedShare: number;
  /** The text of those fixed layers, lower-cased, cut. */
  coverText: string;
  /** A known consent platform's root that is visible, its viewport share and text. */
  consentRoot: { name: string; share: number; text: string } | null;
  /** Scrolling taken away: overflow hidden on html or body. */
  scrollLocked: boolean;
  /** A visible password field, and whether it sits in a fixed layer. */
  password: { visible: boolean; inCover: boolean };
  /** The script's own run time in the page, ms. */
  ms: number;
}

// Runs in the page, once; bounded: a grid of points, a handful of selectors, capped walks.
export const FINDING_SIGNALS_SCRIPT = `() => {
  const started = performance.now();
  const vw = innerWidth, vh = innerHeight;
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return null;
    const s = getComputedStyle(el);
    if (s.visibility === "hidden" || s.display === "none" || Number(s.opacity) === 0) return null;
    return r;
  };
  const share = (r) => Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)) *
    Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0)) / (vw * vh);
  const body = document.body;
  let text = body ? body.innerText.replace(/\\s+/g, " ").trim() : "";
  let textLength = text.length;
  if (body && textLength < 200) {
    const hosts = document.querySelectorAll("*");
    for (let i = 0; i < hosts.length && i < 5000; i++) {
      const root = hosts[i].shadowRoot;
      if (root) textLength += (root.textContent || "").replace(/\\s+/g, " ").trim().length;
    }
  }
  const MARKERS = {
    "#challenge-form": "#challenge-form, #challenge-running, #challenge-stage",
    "cf-chl": "[id^=cf-chl], [class*=cf-chl], script[src*='/cdn-cgi/challenge-platform']",
    "challenge-platform": "script[src*='challenge-platform'], iframe[src*='challenges.cloudflare.com']",
    "cf-turnstile": ".cf-turnstile, iframe[src*='turnstile']",
    "g-recaptcha": ".g-recaptcha, iframe[src*='recaptcha']",
    "h-captcha": ".h-captcha, iframe[src*='hcaptcha']",
    "px-captcha": "#px-captcha",
    "captcha-delivery": "iframe[src*='captcha-delivery'], script[src*='captcha-delivery']",
  };
  const challengeMarkers = Object.keys(MARKERS).filter((k) => document.querySelector(MARKERS[k]));
  let media = 0;
  const pictures = document.querySelectorAll("img, svg, canvas, video, iframe, embed, object");
  for (let i = 0; i < pictures.length && i < 2000 && media < 3; i++) {
    const r = visible(pictures[i]);
    if (r && r.width >= 48 && r.height >= 48) media++;
  }
  for (const el of [document.documentElement, body]) {
    if (el && getComputedStyle(el).backgroundImage !== "none") media++;
  }
  // A box's own paint: a background image, or a colour that is not transparent.
  const paintOf = (s) => s.backgroundImage !== "none" ? "image"
    : /^transparent$|rgba\([^)]*,\s*0\)$/.test(s.backgroundColor) ? null : s.backgroundColor;
  const base = (body && paintOf(getComputedStyle(body))) ||
    paintOf(getComputedStyle(document.documentElement)) || "none";
  const layers = new Set();
  let covered = 0, painted = 0;
  for (let y = 0.1; y < 1; y += 0.2) {
    for (let x = 0.1; x < 1; x += 0.2) {
      let el = document.elementFromPoint(vw * x, vh * y), layer = null, paint = null;
      for (; el && el !== document.documentElement; el = el.parentElement) {
        const s = getComputedStyle(el);
        if (s.position === "fixed" || s.position === "sticky") layer = el;
        if (paint === null && el !== body) paint = paintOf(s);
      }
      if (layer) { covered++; layers.add(layer); }
      if (paint !== null && paint !== base) painted++;
    }
  }
  const coverText = [...layers].map((el) => el.innerText || "").join(" ")
    .replace(/\\s+/g, " ").toLowerCase().slice(0, 2000);
  const ROOTS = {
    onetrust: "#onetrust-banner-sdk, #onetrust-consent-sdk",
    cookiebot: "#CybotCookiebotDialog",
    quantcast: ".qc-cmp2-container, #qc-cmp2-container",
    funding_choices: ".fc-consent-root",
    didomi: "#didomi-host, #didomi-popup",
    usercentrics: "#usercentrics-root, #usercentrics-cmp-ui",
    sourcepoint: "[id^=sp_message_container]",
    trustarc: "#truste-consent-track, .truste_box_overlay, #trustarc-banner-overlay",
  };
  let consentRoot = null;
  for (const name of Object.keys(ROOTS)) {
    const el = document.querySelector(ROOTS[name]);
    const r = el && visible(el);
    if (!r) continue;
    const text = (el.innerText || (el.shadowRoot && el.shadowRoot.textContent) || "")
      .replace(/\\s+/g, " ").toLowerCase().slice(0, 500);
    consentRoot = { name, share: share(r), text };
    break;
  }
  const locked = (el) => el && /hidden|clip/.test(getComputedStyle(el).overflowY);
  let password = { visible: false, inCover: false };
  for (const input of document.querySelectorAll("input[type=password]")) {
    if (!visible(input)) continue;
    password = { visible: true, inCover: [...layers].some((layer) => layer.contains(input)) };
    break;
  }
  const h1 = [...document.querySelectorAll("h1")].find((el) => visible(el));
  return {
    title: document.title.slice(0, 200),
    heading: h1 ? h1.innerText.replace(/\\s+/g, " ").trim().slice(0, 200) : "",
    textLength,
    text: text.slice(0, 3000).toLowerCase(),
    challengeMarkers,
    media,
    coveredShare: covered / 25,
    paintedShare: painted / 25,
    coverText,
    consentRoot,
    scrollLocked: Boolean(locked(document.documentElement) || locked(body)),
    password,
    ms: performance.now() - started,
  };
}`;

/** The page's signals, or null when the script could not run (gone, blocked, navigated). */
export async function readFindingSignals(page: Page): Promise<FindingSignals | null> {
  try {
    return await withTimeout(
      page.evaluate(`(${FINDING_SIGNALS_SCRIPT})()`) as Promise<FindingSignals>,
      SIGNALS_BUDGET_MS,
      () => new Error("finding signals timed out"),
    );
  } catch {
    // Never the capture's failure: the report then says what it has.
    return null;
  }
}
