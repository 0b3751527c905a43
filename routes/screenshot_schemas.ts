import { z } from "@hono/zod-openapi";
import {
  COLOR_SCHEMES,
  DEVICE_NAMES,
  DEVICE_TYPES,
  DEVICES,
  FAVICON_BUDGET_MS,
  MAX_BLOCK_REQUESTS,
  MAX_CAPTURE_PIXELS,
  MAX_CAPTURE_SIDE,
  MAX_COOKIE_BYTES,
  MAX_COOKIES,
  MAX_DELAY_MS,
  MAX_HEADER_BYTES,
  MAX_HEADERS,
  MAX_HEIGHT,
  MAX_HIDE_SELECTORS,
  MAX_HTML_BYTES,
  MAX_ICON_BYTES,
  MAX_PATTERN_LENGTH,
  MAX_SCRIPT_BYTES,
  MAX_SCRIPTS,
  MAX_SELECTOR_LENGTH,
  MAX_STYLES_BYTES,
  MAX_USER_AGENT_LENGTH,
  MAX_VIEWPORT_PIXELS,
  MAX_WIDTH,
  MEDIA_TYPES,
  MIN_HEIGHT,
  MIN_WIDTH,
  OUTPUT_FORMATS,
  RESOURCE_TYPES,
  SCALES,
} from "../lib/capture/mod.ts";
import { RATE_LIMIT_HEADERS } from "../lib/http/openapi_responses.ts";
import { CaptureReportSchema } from "./report_schemas.ts";
import { FramePlacementSchema, FrameSchema } from "./frame_schemas.ts";
import { OutputFormatSchema, PdfOptionsSchema, RecordingOptionsSchema } from "./output_schemas.ts";

const DEVICE_LIST = DEVICE_NAMES.map((name) => {
  const { width, height, scale } = DEVICES[name];
  return `${name} (${width}x${height} at ${scale})`;
}).join(", ");

/** Body of POST /api/screenshot; its example feeds the curl line of /llms.txt. */
export const ScreenshotRequestSchema = z.object({
  url: z.string().optional().openapi({
    format: "uri",
    description: "Absolute http or https URL of a public page. Normalised (see `url` of the " +
      "response) before it is captured and used as the cache key. Exactly one of url and html " +
      "is required (else 400).",
    example: "https://example.com",
  }),
  html: z.string().min(1).refine(
    (html) => new TextEncoder().encode(html).length <= MAX_HTML_BYTES,
    { message: `at most ${MAX_HTML_BYTES} bytes of HTML (UTF-8)` },
  ).optional().openapi({
    description: `An HTML document (at most ${MAX_HTML_BYTES} bytes) rendered instead of a ` +
      "page at `url`: an invoice, a social card, an email. What it references loads through " +
      "the same network boundary as any page (a private address is refused alike); relative " +
      "references have no base unless the document sets `<base href>`. Cached by the hash of " +
      "the document and the options; the response's `url` is `about:blank`. Not with " +
      "failOnHttpError, cookies or headers (400: a document has no status and no origin).",
    example: "<h1 style='font: 64px sans-serif'>Invoice 42</h1>",
  }),
  deviceType: z.enum(DEVICE_TYPES).default("desktop").openapi({
    description: "desktop = 1920x1080 viewport; mobile = 375x667 with mobile emulation.",
    example: "desktop",
  }),
  colorScheme: z.enum(COLOR_SCHEMES).default("light").openapi({
    description: "Sent to the page as prefers-color-scheme.",
    example: "light",
  }),
  width: z.int().min(MIN_WIDTH).max(MAX_WIDTH).optional().openapi({
    description: `Viewport width in CSS px (${MIN_WIDTH} to ${MAX_WIDTH}); default the ` +
      "device's or deviceType's. deviceType still sets the user agent and touch. width x " +
      `height x scale^2 may be at most ${MAX_VIEWPORT_PIXELS} image pixels (else 400).`,
    example: 1440,
  }),
  height: z.int().min(MIN_HEIGHT).max(MAX_HEIGHT).optional().openapi({
    description: `Viewport height in CSS px (${MIN_HEIGHT} to ${MAX_HEIGHT}); default the ` +
      "device's or deviceType's.",
    example: 900,
  }),
  device: z.enum(DEVICE_NAMES).optional().openapi({
    description: "A named device: its viewport, pixel ratio, user agent and touch, and the " +
      "deviceType it belongs to (which replaces the one sent). width, height and a scale " +
      `other than 1 override its own. Known: ${DEVICE_LIST}. Any other name: 400 listing these.`,
    example: "iphone-15",
  }),
  forceRefresh: z.boolean().default(false).openapi({
    description: "true bypasses the cached capture and replaces it with a new render. Not " +
      "with a maxAge above 0 or staleWhileRevalidate (400: they would serve the cache).",
    example: false,
  }),
  maxAge: z.int().min(0).optional().openapi({
    description: "Seconds: serve a cached capture only if it is at most this old, else render " +
      "anew (and replace the entry). 0 is forceRefresh. At most the service's cache lifetime " +
      "(CACHE_TTL_SECONDS, 172800 by default); more is a 400. The response's `age` says how " +
      "old the image is. Not with forceRefresh (400) unless 0.",
    example: 3600,
  }),
  staleWhileRevalidate: z.boolean().default(false).openapi({
    description: "With maxAge: a cached capture older than maxAge is served at once (with " +
      "`stale: true`) and refreshed in the background for the next request: one refresh per " +
      "capture at a time, and only while no capture waits for a render slot. Not with " +
      "forceRefresh (400).",
    example: false,
  }),
  fullPage: z.boolean().default(false).openapi({
    description: "true captures the whole scrollable page, not just the viewport, as a person " +
      "scrolling it sees it. Settled (the default), the real viewport visits each scroll " +
      "position from the top, the page is settled there (reveals shown, counters at their end, " +
      "scroll-linked animations at that position, lazy images loaded) and the screens are " +
      "joined; viewport-sized backgrounds keep the real viewport's size, and fixed and sticky " +
      "elements appear once, where they sit at the top. When the document does not scroll but " +
      "an element covering most of the viewport does (an app shell's main pane), that element " +
      "is shown unrolled to its whole height. With `settle: false` the page is scrolled " +
      "through once for lazy content and drawn as it is. A page taller than " +
      `${MAX_CAPTURE_SIDE} image pixels (at \`scale\`), or than ${MAX_CAPTURE_PIXELS} image ` +
      "pixels in all, is cut there and the response says `truncated: true`. Not with selector " +
      "or clip (400): they shoot their own area, past the viewport too.",
    example: false,
  }),
  scale: z.number().pipe(z.literal(SCALES)).default(1).openapi({
    type: "integer",
    enum: [...SCALES],
    default: 1,
    description: "Device pixel ratio: desktop at 2 is 3840x2160, mobile at 3 is 1125x2001.",
    example: 1,
  }),
  selector: z.string().min(1).max(MAX_SELECTOR_LENGTH).optional().openapi({
    description: "CSS selector: capture only the first matching element's box (at `scale`). " +
      "No match once the page is ready, or not valid CSS: 400 `invalid_request`. Not with clip " +
      "or fullPage (400): the element's whole box is shot, past the viewport too.",
    example: "main",
  }),
  hideSelectors: z.array(z.string().min(1).max(MAX_SELECTOR_LENGTH)).max(MAX_HIDE_SELECTORS)
    .default([]).openapi({
      description: `Up to ${MAX_HIDE_SELECTORS} CSS selectors of elements made invisible ` +
        "(visibility: hidden) before the shot.",
      example: [".chat-widget"],
    }),
  removeSelectors: z.array(z.string().min(1).max(MAX_SELECTOR_LENGTH)).max(MAX_HIDE_SELECTORS)
    .default([]).openapi({
      description: `Up to ${MAX_HIDE_SELECTORS} CSS selectors of elements removed from the ` +
        "layout (display: none) before the shot: what follows moves up, unlike hideSelectors, " +
        "which keep the space.",
      example: [".promo-bar"],
    }),
  styles: z.string().min(1).refine(
    (css) => new TextEncoder().encode(css).length <= MAX_STYLES_BYTES,
    { message: `at most ${MAX_STYLES_BYTES} bytes of CSS (UTF-8)` },
  ).optional().openapi({
    description: `CSS text (at most ${MAX_STYLES_BYTES} bytes) added to the page as it loads, ` +
      "before the page settles, so what it changes is waited for like the rest; the page's " +
      "Content Security Policy does not refuse it. Use !important to win over the page's own.",
    example: "header { display: none !important; }",
  }),
  clickSelector: z.string().min(1).max(MAX_SELECTOR_LENGTH).optional().openapi({
    description: "CSS selector of an element clicked once after the page is ready (a real " +
      "mouse click at its centre), followed by a short settle, before the shot (the scroll " +
      "position is restored). No visible match, or not valid CSS: 400 `invalid_request`.",
    example: "#show-details",
  }),
  scripts: z.array(
    z.string().min(1).refine(
      (script) => new TextEncoder().encode(script).length <= MAX_SCRIPT_BYTES,
      { message: `at most ${MAX_SCRIPT_BYTES} bytes of JavaScript (UTF-8)` },
    ),
  ).max(MAX_SCRIPTS).default([]).openapi({
    description: `Up to ${MAX_SCRIPTS} pieces of JavaScript (at most ${MAX_SCRIPT_BYTES} bytes ` +
      "each) run in the page's main frame, in order, after it loads (and after waitForSelector) " +
      "and before clickSelector, the settle and the shot, as the DevTools console runs them: " +
      "when a script's last expression is a promise, it is awaited. They run within the capture " +
      "budget, reach only what the page may (the same boundary), and enter the cache key. A " +
      "script that throws: 400 `invalid_request` with the page's message; one still running " +
      "when the budget ends: 408 `upstream_timeout`. Not with javaScript false (400).",
    example: [
      "document.querySelector('#accept')?.click()",
      "new Promise((done) => setTimeout(done, 200))",
    ],
  }),
  transparent: z.boolean().default(false).openapi({
    description: "true leaves out the browser's white default background: the PNG has an " +
      "alpha channel, transparent wherever the page paints no background of its own. With " +
      "`selector`, an element on a transparent background. Not with format jpeg (400).",
    example: false,
  }),
  blockAds: z.boolean().default(false).openapi({
    description: "true blocks ad and tracker requests and hides ad slots, with EasyList-syntax " +
      "filter lists. 503 `upstream_unavailable` while the service has no list loaded.",
    example: false,
  }),
  hideAnnoyances: z.boolean().default(false).openapi({
    description: "true hides chat widgets (Intercom, Drift, HubSpot, Crisp, Tawk and the " +
      "like), newsletter and notification pop-ups and social overlays, with the element-hiding " +
      "rules of maintained filter lists (Fanboy's Annoyance List by default). 503 " +
      "`upstream_unavailable` while the service has no such list loaded.",
    example: false,
  }),
  hideCookieBanners: z.boolean().default(false).openapi({
    description: "true answers consent dialogs with reject where the platform allows it " +
      "(DuckDuckGo autoconsent rules: OneTrust, Cookiebot, Didomi, Quantcast, TrustArc, " +
      "Usercentrics and many more) and hides any that remain.",
    example: false,
  }),
  waitForSelector: z.string().min(1).max(MAX_SELECTOR_LENGTH).optional().openapi({
    description: "CSS selector: after load, wait until it matches a visible element. Not " +
      "within the capture budget: 408 `upstream_timeout`.",
    example: "#chart.ready",
  }),
  delayMs: z.int().min(0).max(MAX_DELAY_MS).default(0).openapi({
    description: "Wait this long after the page is ready, before the shot; it ends at the " +
      "capture budget at the latest.",
    example: 0,
  }),
  cookies: z.array(z.object({
    name: z.string().min(1).max(256),
    value: z.string().max(4096),
  })).max(MAX_COOKIES).optional().openapi({
    description: `Up to ${MAX_COOKIES} cookies (${MAX_COOKIE_BYTES} bytes in all) for a page ` +
      "behind a login, sent in the Cookie header of requests to the target's own origin " +
      "(scheme, host and port) only, after the cookies the site sets itself; never to other " +
      "origins (third-party subresources, other ports of the host, redirects elsewhere), and " +
      "not visible to the page's scripts. A capture with cookies or headers is never read " +
      "from or written to the cache, and their values are never logged. Not with html (400: a " +
      "document has no origin to send them to).",
    example: [{ name: "session", value: "abc123" }],
  }),
  headers: z.record(z.string(), z.string()).optional().openapi({
    description: `Up to ${MAX_HEADERS} request headers (${MAX_HEADER_BYTES} bytes in all) ` +
      "sent, like cookies, on requests to the target's own origin only. Headers the browser " +
      "or the connection controls are refused with a 400 naming them: Host, Cookie (use " +
      "`cookies`), Content-Length, Connection and the other hop-by-hop headers, Origin, " +
      "Referer, User-Agent (use `userAgent` or `device`), Proxy-* and Sec-*. Accept-Language " +
      "is refused with locale (400: send locale alone). Not with html (400: no origin).",
    example: { Authorization: "Bearer eyJhbGciOi..." },
  }),
  failOnHttpError: z.boolean().default(false).openapi({
    description: "true answers 502 `upstream_failed` (the status in its hint) instead of an " +
      "image when the page's main document ends with a 4xx or 5xx status; such a render is not " +
      "cached. Also applies to a cached capture of an error page. It does not change the " +
      "render, so it is not part of the cache key. Not with html (400: a document has no status).",
    example: false,
  }),
  settle: z.boolean().default(true).openapi({
    description: "true (the default) shoots the page as a person sees it once it stopped " +
      "moving: the page's timers and animation frames are fast-forwarded (Chromium virtual " +
      "time, up to 5 s of page time in a few milliseconds), finite CSS animations, transitions " +
      "and Web Animations are brought to their end, infinite ones (spinners, marquees) rest " +
      "at their un-animated frame, and late images, web fonts and fetched data are awaited " +
      "(at most 1.5 s more, within the capture budget). A shot that comes out one flat colour " +
      "while the page has content is taken once more after a second, short settle. A page " +
      "that keeps animating or polling is shot as it is at the end of those bounds, not " +
      "answered with 408. A static page skips all of it. false shoots the first frame after " +
      "load, as before: entrance animations mid-way, scroll reveals below the first screen " +
      "hidden; it is cached apart from settled captures.",
    example: true,
  }),
  format: OutputFormatSchema,
  frame: FrameSchema.optional().openapi({
    description: "A finished picture instead of the raw capture: the capture on a background " +
      "with padding, rounded corners, a shadow, a browser bar with the page's own title and " +
      "icon, or a laptop, phone or tablet around it, at a social size if asked (see Frame). " +
      "The capture itself is cached as without a frame, so another frame of a cached capture " +
      "renders no page. Images only (png, jpeg, webp): with another format a 400.",
  }),
  pdf: PdfOptionsSchema,
  recording: RecordingOptionsSchema,
  quality: z.int().min(1).max(100).optional().openapi({
    description: "1 to 100, for jpeg and webp only (default 80); with format png (the " +
      "default) a 400.",
    example: 80,
  }),
  userAgent: z.string().min(1).max(MAX_USER_AGENT_LENGTH).regex(/^[\x20-\x7e]+$/, {
    message: "printable ASCII only (it is sent as an HTTP header)",
  }).optional().openapi({
    description: `The User-Agent the page and its requests see (at most ` +
      `${MAX_USER_AGENT_LENGTH} printable ASCII characters); it replaces the device's.`,
    example: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) " +
      "Chrome/156.0.0.0 Safari/537.36",
  }),
  locale: z.string().min(1).max(64).optional().openapi({
    description: "BCP 47 language tag: sets navigator.language, the Accept-Language header " +
      "and the default locale of Intl (dates, numbers). Not a language tag: 400. Not with an " +
      "Accept-Language in headers (400).",
    example: "de-DE",
  }),
  timezone: z.string().min(1).max(64).optional().openapi({
    description: "IANA time zone name the page's clock runs in (Date, Intl). An unknown one: " +
      "400.",
    example: "Europe/Berlin",
  }),
  reducedMotion: z.boolean().default(false).openapi({
    description: "true: the page sees prefers-reduced-motion: reduce.",
    example: false,
  }),
  media: z.enum(MEDIA_TYPES).default("screen").openapi({
    description: "CSS media type: print renders the page with its print styles (@media print).",
    example: "screen",
  }),
  javaScript: z.boolean().default(true).openapi({
    description: "false: the page's own scripts never run (inline, external, event handlers). " +
      "Not with `scripts` (400): the caller's run as the page's own.",
    example: true,
  }),
  blockResources: z.array(z.enum(RESOURCE_TYPES)).max(RESOURCE_TYPES.length).default([])
    .openapi({
      description: "Resource types never requested at all: " +
        `${RESOURCE_TYPES.join(", ")}. The page's own document cannot be blocked.`,
      example: ["font", "media"],
    }),
  blockRequests: z.array(z.string().min(1).max(MAX_PATTERN_LENGTH)).max(MAX_BLOCK_REQUESTS)
    .default([]).openapi({
      description: `Up to ${MAX_BLOCK_REQUESTS} URL patterns of requests never made: a pattern ` +
        "matches a whole URL, `*` standing for any run of characters " +
        "(`*://fonts.googleapis.com/*`, `*.woff2`). A pattern that matches the page's own URL " +
        "is a 400: the document cannot be blocked.",
      example: ["*://www.googletagmanager.com/*", "*.woff2"],
    }),
  clip: z.object({
    x: z.number().min(0).max(MAX_WIDTH * 10),
    y: z.number().min(0).max(MAX_CAPTURE_SIDE * 10),
    width: z.number().min(1).max(MAX_WIDTH),
    height: z.number().min(1).max(MAX_CAPTURE_SIDE),
  }).optional().openapi({
    description: "A rectangle of the document in CSS px (from its top left corner, once the " +
      "page settled) to shoot instead of the viewport, at `scale`. The part outside the " +
      "document is cut off, and so is what passes the size cap of fullPage; the response then " +
      "says `truncated: true`. Not with selector or fullPage (400).",
    example: { x: 0, y: 0, width: 1200, height: 630 },
  }),
}).openapi("ScreenshotRequest", {
  example: { url: "https://example.com", deviceType: "desktop", colorScheme: "light" },
});

/** What the captured page says about itself, read once it settled. */
export const PageMetadataSchema = z.object({
  title: z.string().nullable().openapi({
    description: "document.title, trimmed; null when empty.",
    example: "Example Domain",
  }),
  description: z.string().nullable().openapi({
    description: '<meta name="description">, else og:description.',
    example: "An example page.",
  }),
  lang: z.string().nullable().openapi({
    description: "The lang attribute of <html>.",
    example: "en",
  }),
  themeColor: z.string().nullable().openapi({
    description: '<meta name="theme-color"> (the one for the captured colorScheme when the ' +
      "page declares one per scheme), as written.",
    example: "#ffffff",
  }),
  favicon: z.string().nullable().openapi({
    format: "uri",
    description: "Absolute URL of the best icon the page declares (an SVG, else the size " +
      "closest above 32 px, else apple-touch-icon), or /favicon.ico of its origin; null for an " +
      "html capture that declares none.",
    example: "https://example.com/favicon.ico",
  }),
  faviconData: z.string().nullable().openapi({
    description: "That icon's own bytes as a `data:` URL, read by the capture through its own " +
      "network path (the same boundary as the page, without cookies), so a client can draw it " +
      "on a canvas without fetching it. The type is read from the bytes: PNG, JPEG, WebP, GIF, " +
      "BMP, AVIF, ICO (cut to its one image nearest above 32 px) or SVG. null when there is no " +
      `icon, when it is not an image, larger than ${MAX_ICON_BYTES / 1024} KiB, not answered ` +
      `with a 2xx within ${FAVICON_BUDGET_MS / 1000} s, refused by the boundary, or blocked by ` +
      '`blockResources` (`"image"`) or `blockRequests`.',
    example: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4" +
      "nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC",
  }),
  ogImage: z.string().nullable().openapi({
    format: "uri",
    description: "Absolute URL of og:image (else twitter:image).",
    example: "https://example.com/card.png",
  }),
}).openapi("PageMetadata", {
  description: "What the captured page says about itself, read once it settled and cached with " +
    "the image; each field null when the page does not say.",
});

/** Body of a successful capture. */
export const ScreenshotResponseSchema = z.object({
  screenshot: z.string().optional().openapi({
    description: "The image, PDF or recording in `format` (PNG by default), base64-encoded, " +
      "without a data-URI prefix: the viewport at `scale` unless fullPage, selector or clip " +
      "asked for more or less. Absent for markdown and html, whose text is in `content`.",
    example: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4" +
      "AAAAAElFTkSuQmCC",
  }),
  content: z.string().optional().openapi({
    description: "Format markdown or html only: the page's readable content as GitHub-" +
      "flavoured Markdown, or its rendered DOM as HTML (scripts removed).",
    example: "# Example Domain\n\nThis domain is for use in illustrative examples.",
  }),
  format: z.enum(OUTPUT_FORMATS).openapi({
    description: "Format of `screenshot` (or of `content`).",
    example: "png",
  }),
  url: z.string().openapi({
    format: "uri",
    description: "The normalised URL that was captured: scheme and host lowercased, default " +
      "port and fragment dropped, path and query kept; about:blank for an `html` capture.",
    example: "https://example.com/",
  }),
  page: PageMetadataSchema,
  cached: z.boolean().openapi({
    description: "true when served from the cache (or from an identical render that finished " +
      "just before and is still being written to it).",
    example: false,
  }),
  age: z.int().openapi({
    description: "Seconds since the image was rendered: 0 for a fresh capture.",
    example: 0,
  }),
  stale: z.literal(true).optional().openapi({
    description: "Present when a capture older than maxAge was served under " +
      "staleWhileRevalidate; a refresh runs in the background.",
    example: true,
  }),
  strategy: z.string().optional().openapi({
    description: "The capture backend that produced the image (also on a cache hit).",
    example: "chromium-local",
  }),
  deviceType: z.enum(DEVICE_TYPES).optional().openapi({
    description: "The device type captured (as requested, or the named device's).",
    example: "desktop",
  }),
  colorScheme: z.enum(COLOR_SCHEMES).optional().openapi({
    description: "The colour scheme captured.",
    example: "light",
  }),
  httpStatus: z.int().optional().openapi({
    description: "HTTP status of the page's main document after redirects (as X-Target-Status), " +
      "when known; on a cache hit, the status of the cached render.",
    example: 200,
  }),
  width: z.int().optional().openapi({
    description: "Width of the image (or of a recording's frames) in pixels; absent for pdf, " +
      "markdown and html.",
    example: 1920,
  }),
  height: z.int().optional().openapi({
    description: "Height of the image (or of a recording's frames) in pixels; absent for pdf, " +
      "markdown and html.",
    example: 1080,
  }),
  pages: z.int().optional().openapi({
    description: "Format pdf only: the PDF's page count (after pageRanges).",
    example: 3,
  }),
  durationMs: z.int().optional().openapi({
    description: "Format mp4, webm or gif only: the recording's length in ms.",
    example: 6000,
  }),
  frames: z.int().optional().openapi({
    description: "Format mp4, webm or gif only: the recording's frame count.",
    example: 180,
  }),
  fps: z.int().optional().openapi({
    description: "Format mp4, webm or gif only: the recording's frames a second.",
    example: 30,
  }),
  truncated: z.literal(true).optional().openapi({
    description: "Present when a full page or element was taller than the cap and was cut, " +
      "or a clip reached past the document.",
    example: true,
  }),
  report: CaptureReportSchema.optional(),
  frame: FramePlacementSchema.optional().openapi({
    description: "With a frame: its size and where the capture went in it (`width` and " +
      "`height` above are the frame's).",
  }),
}).openapi("ScreenshotResponse");

/** Headers of a successful capture: cache, target status and the rate-limit state. */
export const SCREENSHOT_SUCCESS_HEADERS = RATE_LIMIT_HEADERS.omit({ "Retry-After": true }).extend({
  "X-Cache": z.enum(["hit", "miss"]).openapi({ description: "Whether the cache answered." }),
  "X-Target-Status": z.string().optional().openapi({
    description: "HTTP status of the captured page's main document, when known. A page that " +
      "answers with an error status is still captured as a browser shows it.",
    example: "200",
  }),
  "X-Image-Width": z.string().optional().openapi({
    description: "Width of the image or of a recording's frames in pixels (`width` of the JSON).",
    example: "1920",
  }),
  "X-Image-Height": z.string().optional().openapi({
    description: "Height of the image or of a recording's frames in pixels (`height` of the " +
      "JSON).",
    example: "1080",
  }),
  "X-Pdf-Pages": z.string().optional().openapi({
    description: "A PDF's page count (`pages` of the JSON).",
    example: "3",
  }),
  "X-Duration-Ms": z.string().optional().openapi({
    description: "A recording's length in ms (`durationMs` of the JSON).",
    example: "6000",
  }),
  "Age": z.string().openapi({
    description: "Seconds since the image was rendered (`age` of the JSON).",
    example: "0",
  }),
  "X-Truncated": z.literal("true").optional().openapi({
    description: "Present when the image was cut (`truncated` of the JSON).",
  }),
  "X-Capture-Findings": z.string().optional().openapi({
    description: "The kinds of the report's findings, comma-separated, when there are any " +
      "(`report.findings` of the JSON).",
    example: "consent_wall",
  }),
  "X-Stale": z.literal("true").optional().openapi({
    description: "Present when a stale capture was served (`stale` of the JSON).",
  }),
  "RateLimit-Policy": z.string().openapi({
    description: "IETF RateLimit-Policy: quota q per window w seconds.",
    example: '"per-ip";q=20;w=60',
  }),
  "RateLimit": z.string().openapi({
    description: "IETF RateLimit: r requests remaining, t seconds until the window resets.",
    example: '"per-ip";r=19;t=60',
  }),
});
