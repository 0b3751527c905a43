/**
 * What looks wrong with a capture, from general signals rather than per-site rules: one page
 * script read right before the shot (after hiding, so what an option removed is not reported)
 * returns the signals, and a pure function decides the findings from them and the target's
 * status. The signals and their limits are in docs/capture-report.md.
 */
import type { Page } from "puppeteer-core";
import { withTimeout } from "../../timeout.ts";
import type { Finding } from "../report.ts";

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
  /** The start of the visible text, lower-cased, for the phrases below. */
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

/** Beyond this much visible text a page has content of its own, whatever else it shows. */
const CONTENT_CHARS = 1_500;
/** Below this, a page shows nothing readable. */
const BLANK_CHARS = 20;
/** A smaller layer is a wall too when the page cannot be scrolled past it. */
const LOCKED_SHARE = 0.2;
/** A page this short around a captcha widget is the widget's page. */
const WIDGET_PAGE_CHARS = 500;
/** Coloured boxes over this share of the viewport are a picture of their own, not a blank. */
const PAINTED_SHARE = 0.2;
/** A layer covering this share of the viewport is a wall, not a banner. */
const WALL_SHARE = 0.4;

const CHALLENGE_PHRASES =
  /just a moment|checking your browser|verify you are human|verifying you are human|attention required|are you a robot|security check to access|please enable cookies and javascript|ddos protection by/;
// Markers a challenge page carries; a captcha widget alone also sits on ordinary forms.
const STRONG_MARKERS = new Set([
  "#challenge-form",
  "cf-chl",
  "challenge-platform",
  "px-captcha",
  "captcha-delivery",
]);
// Consent-specific words: "privacy" alone sits in every footer and header.
const CONSENT_WORDS = /cookie|consent|gdpr|datenschutz|personal data/;
const SIGN_IN_WORDS =
  /sign in|log in|login|signin|password|anmelden|connexion|subscribe to continue/;
const LOGIN_PATH = /(^|\/)(log-?in|sign-?in|auth|sso|session\/new|account\/login)(\/|$|\.)/i;
const ERROR_TITLE =
  /\b(404|not found|page not found|410|gone|500|internal server error|server error|502|bad gateway|503|service unavailable)\b/i;

/** What decideFindings reads besides the signals. */
export interface FindingFacts {
  /** The main document's status, null when unknown (an html job). */
  status: number | null;
  requestedUrl: string;
  finalUrl: string;
  /** The capture was cut: the longest side it may have, in image pixels. */
  truncatedAt?: number;
}

/**
 * The findings of a page from its signals (null: the script could not run, status only), in
 * FINDING_KINDS order; a bot check or an error page is not also called blank.
 */
export function decideFindings(signals: FindingSignals | null, facts: FindingFacts): Finding[] {
  const findings: Finding[] = [];
  const challenge = signals && challengeOf(signals);
  if (challenge) findings.push(challenge);
  const consent = signals && consentWallOf(signals);
  if (consent) findings.push(consent);
  const login = loginWallOf(signals, facts);
  if (login) findings.push(login);
  const error = challenge ? null : errorPageOf(signals, facts.status);
  const blank = !challenge && !error && signals && blankOf(signals);
  if (blank) findings.push(blank);
  if (error) findings.push(error);
  if (facts.truncatedAt !== undefined) findings.push(truncatedOf(facts.truncatedAt));
  return findings;
}

function truncatedOf(maxSide: number): Finding {
  return {
    kind: "truncated",
    hint: `The capture was cut at the size cap (${maxSide} image pixels a side) or at the end ` +
      "of the document: ask for a clip or a selector of the part you need, or a smaller scale.",
  };
}

function challengeOf(s: FindingSignals): Finding | null {
  if (s.textLength >= CONTENT_CHARS) return null;
  const phrase = CHALLENGE_PHRASES.exec(`${s.title.toLowerCase()} ${s.text.slice(0, 600)}`);
  const strong = s.challengeMarkers.find((m) => STRONG_MARKERS.has(m));
  // A captcha widget alone marks a challenge only where the page has hardly anything else.
  const widget = s.textLength < WIDGET_PAGE_CHARS ? s.challengeMarkers[0] : undefined;
  const evidence = phrase?.[0] ?? strong ?? widget;
  if (!evidence) return null;
  return {
    kind: "bot_challenge",
    hint: "The site served a bot check instead of the page: retry later, or pass the cookies " +
      "of a real session (cookies); a headless capture cannot pass it.",
    evidence,
  };
}

function consentWallOf(s: FindingSignals): Finding | null {
  const root = s.consentRoot;
  const rootWall = root && (root.share >= WALL_SHARE || s.scrollLocked) &&
    (CONSENT_WORDS.test(root.text) || root.text === "");
  const coverWall = CONSENT_WORDS.test(s.coverText) &&
    (s.coveredShare >= WALL_SHARE || (s.scrollLocked && s.coveredShare >= LOCKED_SHARE));
  if (!rootWall && !coverWall) return null;
  const share = Math.round(Math.max(s.coveredShare, root?.share ?? 0) * 100);
  return {
    kind: "consent_wall",
    hint: "A consent dialog covers the page: retry with hideCookieBanners: true (or " +
      "hideSelectors naming it).",
    evidence: `${rootWall ? root.name : "fixed layer"} over ${share}% of the viewport` +
      (s.scrollLocked ? ", scrolling locked" : ""),
  };
}

function loginWallOf(s: FindingSignals | null, facts: FindingFacts): Finding | null {
  const hint = "The page asks to sign in: pass the cookies of a signed-in session (cookies).";
  const asked = pathOf(facts.requestedUrl);
  const landed = pathOf(facts.finalUrl);
  // Asked for a sign-in page: that is what the caller wanted to see.
  if (LOGIN_PATH.test(asked)) return null;
  if (landed !== asked && LOGIN_PATH.test(landed)) {
    return { kind: "login_wall", hint, evidence: `redirected to ${landed.slice(0, 100)}` };
  }
  if (!s?.password.visible) return null;
  const words = SIGN_IN_WORDS.test(s.password.inCover ? s.coverText : s.text);
  const dominates = s.password.inCover
    ? s.coveredShare >= WALL_SHARE
    : s.textLength < CONTENT_CHARS;
  if (!words || !dominates) return null;
  return {
    kind: "login_wall",
    hint,
    evidence: s.password.inCover ? "password field in an overlay" : "password form, little else",
  };
}

function blankOf(s: FindingSignals): Finding | null {
  if (s.textLength >= BLANK_CHARS || s.media > 0 || s.paintedShare >= PAINTED_SHARE) return null;
  return {
    kind: "blank",
    hint: "Nothing readable was on the page when it was shot: retry with a bigger delayMs, or " +
      "waitForSelector naming the content.",
    evidence: `${s.textLength} characters of text, no images or coloured boxes`,
  };
}

function errorPageOf(s: FindingSignals | null, status: number | null): Finding | null {
  if (status !== null && status >= 400) {
    return { kind: "error_page", hint: statusHint(status), evidence: `status ${status}` };
  }
  if (!s || s.textLength >= CONTENT_CHARS) return null;
  const said = ERROR_TITLE.exec(s.title) ?? ERROR_TITLE.exec(s.heading);
  if (!said) return null;
  return {
    kind: "error_page",
    hint: "The page says it is an error page though its status is not: check the URL.",
    evidence: `says "${said[0]}"`,
  };
}

/** What to do about a target that answered `status` (400 or more). */
function statusHint(status: number): string {
  const fail = " (failOnHttpError: true answers 502 instead of a picture of it)";
  if (status === 404 || status === 410) return `The page does not exist: check the URL${fail}.`;
  if (status === 401 || status === 403) {
    return "The site refused the capture: pass the cookies or headers of a session that may " +
      `see the page (cookies, headers)${fail}.`;
  }
  if (status === 429) return `The site rate-limited the capture: retry later${fail}.`;
  if (status >= 500) return `The site failed to serve the page: retry later${fail}.`;
  return `The site answered ${status}: check the URL and the request${fail}.`;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}
