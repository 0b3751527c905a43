/**
 * The findings decided from a page's signals and its status, without a browser: each wall and
 * its harmless look-alike, which finding wins where two could be said, and a page whose signals
 * could not be read (status only).
 */
import assert from "node:assert/strict";
import { decideFindings, type FindingFacts } from "../../../lib/capture/page/findings.ts";
import type { FindingSignals } from "../../../lib/capture/page/finding_signals.ts";
import { storedReport } from "../../../lib/capture/report.ts";

const ARTICLE: FindingSignals = {
  title: "Harbour report",
  heading: "Harbour report",
  textLength: 2400,
  text: "harbour report paragraph 1 of the harbour report. the tide turned twice...",
  challengeMarkers: [],
  media: 1,
  coveredShare: 0,
  paintedShare: 0,
  coverText: "",
  consentRoot: null,
  scrollLocked: false,
  password: { visible: false, inCover: false },
  ms: 2,
};

const FACTS: FindingFacts = {
  status: 200,
  requestedUrl: "https://news.example/article",
  finalUrl: "https://news.example/article",
};

const kinds = (signals: Partial<FindingSignals> | null, facts: Partial<FindingFacts> = {}) =>
  decideFindings(signals && { ...ARTICLE, ...signals }, { ...FACTS, ...facts })
    .map((finding) => finding.kind);

const CASES: [string, Partial<FindingSignals> | null, Partial<FindingFacts>, string[]][] = [
  ["an article", {}, {}, []],
  [
    "Cloudflare's interstitial, 403",
    {
      title: "Just a moment...",
      textLength: 180,
      text: "verifying you are human. this may take a few seconds.",
      challengeMarkers: ["#challenge-form", "cf-turnstile"],
    },
    { status: 403 },
    ["bot_challenge"],
  ],
  [
    "a DataDome frame alone",
    {
      title: "",
      textLength: 0,
      text: "",
      media: 1,
      challengeMarkers: ["captcha-delivery"],
    },
    { status: 403 },
    ["bot_challenge"],
  ],
  ["a contact form with a reCAPTCHA", { challengeMarkers: ["g-recaptcha"] }, {}, []],
  [
    "a reCAPTCHA and little else",
    {
      textLength: 120,
      text: "please complete the security check",
      challengeMarkers: ["g-recaptcha"],
    },
    {},
    ["bot_challenge"],
  ],
  [
    "an article that mentions 'just a moment'",
    { text: "just a moment, said the ferryman" },
    {},
    [],
  ],
  [
    "a consent platform over the page",
    {
      coveredShare: 1,
      coverText: "we value your privacy. we use cookies... accept all reject all",
      consentRoot: { name: "onetrust", share: 1, text: "we use cookies" },
      scrollLocked: true,
    },
    {},
    ["consent_wall"],
  ],
  [
    "a consent dialog in the middle, scrolling locked",
    {
      coveredShare: 0.24,
      coverText: "this site uses cookies. accept",
      scrollLocked: true,
    },
    {},
    ["consent_wall"],
  ],
  [
    "a cookie banner at the bottom",
    {
      coveredShare: 0.2,
      coverText: "this site uses cookies. accept reject",
    },
    {},
    [],
  ],
  [
    "a known platform's small banner",
    {
      coveredShare: 0.2,
      coverText: "we use cookies",
      consentRoot: { name: "cookiebot", share: 0.15, text: "we use cookies" },
    },
    {},
    [],
  ],
  [
    "a fixed header naming its privacy page, scrolling locked (an app shell)",
    {
      coveredShare: 0.2,
      coverText: "home docs privacy terms",
      scrollLocked: true,
    },
    {},
    [],
  ],
  ["a redirect to a sign-in page", { password: { visible: true, inCover: false } }, {
    finalUrl: "https://news.example/account/login?next=/article",
  }, ["login_wall"]],
  [
    "a sign-in form and little else",
    {
      textLength: 140,
      text: "sign in to continue reading email password log in",
      password: { visible: true, inCover: false },
    },
    {},
    ["login_wall"],
  ],
  [
    "a sign-in overlay over an article",
    {
      coveredShare: 0.6,
      coverText: "subscribe to continue. log in email password",
      password: { visible: true, inCover: true },
    },
    {},
    ["login_wall"],
  ],
  [
    "the sign-in page asked for",
    {
      textLength: 140,
      text: "sign in email password",
      password: { visible: true, inCover: false },
    },
    { requestedUrl: "https://news.example/login", finalUrl: "https://news.example/login" },
    [],
  ],
  [
    "a forum with a sign-in box in its header",
    {
      password: { visible: true, inCover: false },
      text: "log in password ...",
    },
    {},
    [],
  ],
  ["an empty app shell", { textLength: 0, text: "", media: 0, title: "" }, {}, ["blank"]],
  ["a picture and no text", { textLength: 0, text: "", media: 1 }, {}, []],
  [
    "coloured sections and a heading",
    { textLength: 17, text: "wow.js load moar!!", media: 0, paintedShare: 0.6 },
    {},
    [],
  ],
  [
    "a 404 with a short text",
    {
      title: "404 Not Found",
      textLength: 60,
      media: 0,
    },
    { status: 404 },
    ["error_page"],
  ],
  ["an empty 500", { textLength: 0, media: 0, title: "" }, { status: 500 }, ["error_page"]],
  ["a soft 404", { title: "Page not found | Harbour", textLength: 80 }, {}, ["error_page"]],
  ["an article about 404 pages", { title: "Designing a good 404 page" }, {}, []],
  ["no signals, status 503", null, { status: 503 }, ["error_page"]],
  ["no signals, an html job", null, { status: null, finalUrl: "about:blank" }, []],
];

Deno.test("findings from signals and status: walls, look-alikes, and what wins", () => {
  for (const [name, signals, facts, expected] of CASES) {
    assert.deepEqual(kinds(signals, facts), expected, name);
  }
});

Deno.test("a cut capture is truncated, after the page's own findings", () => {
  const findings = decideFindings(
    { ...ARTICLE, textLength: 0, text: "", media: 0 },
    { ...FACTS, truncatedAt: 16383 },
  );
  assert.deepEqual(findings.map((f) => f.kind), ["blank", "truncated"]);
  assert.match(findings[1].hint, /16383 image pixels/);
});

Deno.test("an error status's hint says what to do about that status", () => {
  const hint = (status: number) =>
    decideFindings(null, { ...FACTS, status }).find((f) => f.kind === "error_page")?.hint ?? "";
  assert.match(hint(404), /does not exist/);
  assert.match(hint(403), /cookies, headers/);
  assert.match(hint(429), /rate-limited/);
  assert.match(hint(502), /retry later/);
  for (const status of [404, 403, 429, 502]) assert.match(hint(status), /failOnHttpError/);
});

Deno.test("a stored report is read back; anything else is none", () => {
  const report = {
    timings: { navigation: 1, settle: 2, shot: 3, encode: 0, total: 6 },
    target: { status: 200, finalUrl: "https://example.com/" },
    console: { errors: 0, exceptions: 0, first: [] },
    requests: { failed: 0, blocked: 0, byReason: {}, first: [] },
    waits: [],
    findings: [{ kind: "blank", hint: "wait longer" }],
  };
  assert.deepEqual(storedReport(structuredClone(report)), report);
  assert.equal(storedReport(undefined), null, "a record from before reports");
  assert.equal(storedReport({ ...report, waits: "none" }), null);
  assert.equal(storedReport({ ...report, findings: [{ kind: "gremlins", hint: "" }] }), null);
});
