/**
 * The capture card's "Take the page as" part: the page as a PDF, a recording or its text,
 * downloaded beside the image Capture frames (wired by downloads.js).
 */
import { html } from "hono/html";
import { OUTPUT_MEDIA_TYPES, type OutputFormat, outputKind } from "../capture/request/output.ts";

interface Choice {
  value: string;
  label: string;
  format: OutputFormat;
  onePage?: true;
}

const CHOICES: Choice[] = [
  { value: "pdf-page", label: "PDF (one page)", format: "pdf", onePage: true },
  // A4 is the API's default paper, so this one sends no pdf options at all.
  { value: "pdf-a4", label: "PDF (A4 pages)", format: "pdf" },
  { value: "mp4", label: "MP4 video", format: "mp4" },
  { value: "webm", label: "WebM video", format: "webm" },
  { value: "gif", label: "GIF", format: "gif" },
  { value: "markdown", label: "Markdown", format: "markdown" },
  { value: "html", label: "HTML", format: "html" },
];

// A downloaded file's extension, where it is not the format's name.
const EXTENSIONS: Partial<Record<OutputFormat, string>> = { markdown: "md" };

/** Each choice carries the API's format, its kind and media type: the script keeps no copy. */
const options = () =>
  CHOICES.map(({ value, label, format, onePage }) =>
    html`
      <option value="${value}" data-format="${format}" data-kind="${outputKind(format)}"
        data-accept="${OUTPUT_MEDIA_TYPES[format]}" data-ext="${EXTENSIONS[format] ?? format}"
        ${onePage ? html`data-one-page="true"` : ""}>${label}</option>
    `
  );

/** The format select, the Download button, and where the downloaded file is named. */
export function pageDownloads() {
  return html`
    <fieldset class="take-as">
      <legend>Take the page as</legend>
      <div class="row">
        <div class="field">
          <label for="take-format">Format</label>
          <select id="take-format" name="takeAs" aria-describedby="take-hint">
            ${options()}
          </select>
        </div>
        <button type="button" id="take-download" class="secondary">Download</button>
      </div>
      <p class="note" id="take-hint">With the fields above; Full page, Transparent background
        and Scale shape an image only and are left out (a video keeps its scale).</p>
      <p class="result" id="take-result" role="status"></p>
      <a id="take-link" hidden>Download again</a>
    </fieldset>
  `;
}
