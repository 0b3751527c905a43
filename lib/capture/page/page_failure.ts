/**
 * What went wrong inside the page, said in the page's terms: page code throws it and never
 * chooses an HTTP status; capture/failures.ts gives each kind its status, code and hint.
 */

export type PageFailureDetail =
  /** A selector of the request that the browser does not accept as CSS. */
  | { kind: "invalid_selector"; selector: string }
  /** `selector` matched nothing visible once the page was ready. */
  | { kind: "no_element"; selector: string }
  /** waitForSelector's element did not appear within the capture budget. */
  | { kind: "element_timeout"; selector: string }
  /** After DOMContentLoaded a script navigated to a page that failed to load. */
  | { kind: "error_page"; url: string }
  /** The page kept the main thread busy and never painted the shot. */
  | { kind: "no_paint" }
  /** A recording's frames were not all taken within the capture budget (a recording is whole). */
  | { kind: "recording_timeout" }
  /** The page kept the main thread busy and its content (markdown, html) was not read in time. */
  | { kind: "read_timeout" }
  /** A recording was asked for where ffmpeg, or its encoder for the format, is not installed. */
  | { kind: "encoder_unavailable"; missing: string; format: string }
  /** clickSelector matched nothing visible (or nothing clickable in time) once the page was ready. */
  | { kind: "nothing_to_click"; selector: string }
  /** A script of `scripts` threw (or its promise rejected) in the page; `index` counts from 0. */
  | { kind: "script_error"; index: number; message: string }
  /** A script of `scripts` did not finish within the capture budget. */
  | { kind: "script_timeout"; index: number }
  /** blockAds ("ads") or hideAnnoyances ("annoyances") while none of its filter lists ever loaded. */
  | { kind: "filters_unavailable"; lists: "ads" | "annoyances" };

export class PageFailure extends Error {
  constructor(readonly detail: PageFailureDetail) {
    super(`page failure: ${detail.kind}`);
    this.name = "PageFailure";
  }
}
