/**
 * What looks wrong with a capture, from general signals rather than per-site rules: the page
 * script of finding_signals.ts returns the signals, and this pure function decides the findings
 * from them and the target's status. The signals and their limits are in docs/capture-report.md.
 */
import type { Finding } from "../report.ts";
import type { FindingSignals } from "./finding_signals.ts";

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
