/** Pages for the PDF producer's tests, served on loopback by servePages (capture_fixtures.ts). */
import { html, type Route } from "./capture_fixtures.ts";

const HEAD = `<!doctype html><html><head><meta charset="utf-8">`;

/** Text with letters beyond ASCII, for extraction. */
export const NON_ASCII_TEXT = "Grüße aus Köln: naïve café, 東京, Ελλάδα";
export const LINK_URL = "https://example.com/docs/pdf";
/** The article's solid background: rgb(51, 102, 204). */
export const ARTICLE_BACKGROUND = [51, 102, 204];
/** Screen paints green, print (its @media print rule) paints red. */
export const SCREEN_GREEN = [0, 255, 0];
export const PRINT_RED = [255, 0, 0];

/** The PDF test pages by path; /tall takes its height in CSS px as `?h=`. */
export function pdfRoutes(): Record<string, Route> {
  return {
    "/article": () =>
      html(`${HEAD}<style>html { background: #3366cc; color: #fff; font: 16px sans-serif }
      </style></head><body><h1>Article</h1><p>${NON_ASCII_TEXT}</p>
      <p><a href="${LINK_URL}" style="color:#fff">Read the docs</a></p></body></html>`),
    // Five pages (or `?n=`) on any paper: each section ends in a page break.
    "/five": (request) => {
      const count = Number(new URL(request.url).searchParams.get("n") ?? 5);
      const sections = Array.from(
        { length: count },
        (_, i) => `<section style="break-after:page">SECTION-${i + 1}</section>`,
      );
      return html(`${HEAD}</head><body>${sections.join("")}</body></html>`);
    },
    // One block 10,000 px tall: its page count on paper follows the scale.
    "/block": () =>
      html(`${HEAD}</head><body style="margin:0"><div style="height:10000px"></div></body>`),
    "/media": () =>
      html(`${HEAD}<style>html { background: #00ff00 }
      @media print { html { background: #ff0000 } }</style></head><body>media</body></html>`),
    "/tall": (request) => {
      const height = Number(new URL(request.url).searchParams.get("h"));
      return html(`${HEAD}</head><body style="margin:0"><div style="height:${height}px;
        position:relative"><p style="position:absolute;top:0;margin:0">TOP-MARK</p>
        <p style="position:absolute;bottom:0;margin:0">BOTTOM-MARK</p></div></body></html>`);
    },
    // scrollHeight rounds this document to 1000 px: printed 1000 px tall, it spills a sliver.
    "/fraction": () =>
      html(`${HEAD}</head><body style="margin:0"><div style="height:1000.4px;background:#ccc">
        FRACTION-MARK</div></body></html>`),
    // In print 100vh is the paper's height: the hero would push the rest off a one-page PDF.
    "/hero": () =>
      html(`${HEAD}</head><body style="margin:0"><header style="height:100vh;background:#222;
        color:#fff">HERO-MARK</header><main style="height:2000px">REST-MARK
        <p style="margin:0;position:relative;top:1900px">BOTTOM-MARK</p></main></body></html>`),
    // Forced breaks and the page's own paper and margins would split or squeeze one page.
    "/breaks": () =>
      html(
        `${HEAD}<style>@page { size: A4; margin: 2cm } @page :first { margin-top: 5cm }</style>
        </head><body>${
          [1, 2, 3].map((n) => `<h2 style="break-before:page">CHAPTER-${n}</h2>`).join("")
        }<div style="height:1500px;position:relative"><p style="position:absolute;bottom:0">
        BOTTOM-MARK</p></div></body></html>`,
      ),
  };
}
