import { html } from "hono/html";
import { pageHead } from "../http/html_page.ts";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  QUALITY_PRESETS,
  type QualityPreset,
} from "../codecs/presets.ts";
import { DEVICE_NAMES, DEVICES as NAMED_DEVICES } from "../capture/request/devices.ts";
import {
  MAX_HEIGHT,
  MAX_STYLES_BYTES,
  MAX_WIDTH,
  MIN_HEIGHT,
  MIN_WIDTH,
} from "../capture/request/options.ts";
import { pageDownloads } from "./page_downloads.ts";
import { frameForm } from "./page_frame.ts";

// The choices are the API's own values, so the page offers exactly what the export accepts.
const FORMAT_LABELS: Record<ExportFormat, string> = { png: "PNG", jpeg: "JPEG", webp: "WebP" };
const PRESET_LABELS: Record<QualityPreset, string> = {
  high: "High",
  medium: "Medium",
  low: "Low",
};

function options<T extends string>(values: readonly T[], labels: Record<T, string>) {
  return values.map((value) => html`<option value="${value}">${labels[value]}</option>`);
}

/** URLs of the editor's static files (content-hashed, so they can be cached forever). */
export interface EditorAssetUrls {
  /** The entry module. */
  script: string;
  /** Every module it imports, preloaded so the browser fetches them in one round trip. */
  modules: string[];
  /** The frame's fonts, in the renderer's fallback order (fetched by the editor). */
  fonts: string[];
  stylesheet: string;
}

/** What the page is rendered from. */
export interface EditorPageOptions {
  assets: EditorAssetUrls;
  /** The service's upload limit: an own image over it is refused before it is framed. */
  maxUploadBytes: number;
}

type Choices = Array<[value: string, label: string]>;

const LIGHT_DARK: Choices = [["light", "Light"], ["dark", "Dark"]];
const DEVICES: Choices = [["desktop", "Desktop"], ["mobile", "Mobile"]];
// The capture's device pixel ratios (the API's `scale`); 1 is the default.
const SCALE_CHOICES: Choices = [["1", "1x"], ["2", "2x"], ["3", "3x"]];

/** A checkbox inside its own label; unchecked is the API's default. */
const checkbox = (id: string, name: string, label: string) =>
  html`<label class="check"><input type="checkbox" id="${id}" name="${name}"> ${label}</label>`;

/** A radio group drawn as a segmented control; the first choice is the default. */
const segmented = (legend: string, name: string, choices: Choices) =>
  html`
    <fieldset class="segmented">
      <legend>${legend}</legend>
      <div class="options">${choices.map(([value, label], i) =>
        html`
          <input type="radio" id="${name}-${value}" name="${name}" value="${value}"
            ${i === 0 ? "checked" : ""}><label for="${name}-${value}">${label}</label>
        `
      )}</div>
    </fieldset>
  `;

/** The named devices (the API's `device`), each with its pixel ratio for the preview. */
const deviceOptions = () =>
  DEVICE_NAMES.map((name) => {
    const { width, height, scale } = NAMED_DEVICES[name];
    return html`<option value="${name}" data-scale="${scale}">${name} (${width}×${height})</option>`;
  });

/** A number field for a viewport side; empty is the device's own size. */
const sideField = (id: string, name: string, label: string, min: number, max: number) =>
  html`
    <div class="field">
      <label for="${id}">${label}</label>
      <input type="number" id="${id}" name="${name}" min="${min}" max="${max}"
        step="1"
        inputmode="numeric" placeholder="auto">
    </div>
  `;

/** A limit as people read it: "25 MB", "64 KB". */
function sizeLabel(bytes: number) {
  const mb = bytes / 1024 / 1024;
  return mb >= 1 ? `${Math.round(mb * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** The editor page at `/`: server-rendered controls; editor.js wires them (no inline code). */
export function editorPage({ assets, maxUploadBytes }: EditorPageOptions) {
  return html`
    <!doctype html>
    <html lang="en">
      ${pageHead({
        title: "Shotline: screenshot editor",
        script: assets.script,
        modules: assets.modules,
        stylesheet: assets.stylesheet,
        markdown: "/llms.txt",
      })}
      <body>
        <header class="top">
          <h1>Shotline</h1>
          <p>Capture a page or a post, or bring your own image; frame it, export it.</p>
          <nav aria-label="API">
            <a href="/docs">API reference</a>
            <a href="/openapi.json">OpenAPI</a>
            <a href="/llms.txt">llms.txt</a>
          </nav>
        </header>
        <main class="editor">
          <div class="panel">
            <section class="card" aria-labelledby="own-title">
              <h2 id="own-title">Your own image</h2>
              <div class="field">
                <label for="image-file">Image file (PNG, JPEG or WebP, up to ${sizeLabel(
                  maxUploadBytes,
                )})</label>
                <input type="file" id="image-file" name="image"
                  accept="image/png,image/jpeg,image/webp" data-max-bytes="${maxUploadBytes}"
                  aria-describedby="own-hint">
              </div>
              <p class="note" id="own-hint">Or paste one anywhere (Ctrl+V, ⌘V), or drop it on the
                preview.</p>
            </section>
            <section class="card" aria-labelledby="capture-title">
              <h2 id="capture-title">Capture a page</h2>
              <form id="capture-form">
                <div class="field">
                  <label for="capture-url">Page URL</label>
                  <input type="text" id="capture-url" name="url" inputmode="url" autocomplete="url"
                    spellcheck="false" required placeholder="https://example.com">
                </div>
                <div class="row">
                  ${segmented("Device", "deviceType", DEVICES)}
                  ${segmented("Page colours", "colorScheme", LIGHT_DARK)}
                </div>
                ${segmented("Scale", "scale", SCALE_CHOICES)}
                <div class="row">
                  <div class="field">
                    <label for="capture-device">Named device</label>
                    <select id="capture-device" name="device">
                      <option value="">None (the device above)</option>
                      ${deviceOptions()}
                    </select>
                  </div>
                  ${sideField("capture-width", "width", "Width (px)", MIN_WIDTH, MAX_WIDTH)}
                  ${sideField("capture-height", "height", "Height (px)", MIN_HEIGHT, MAX_HEIGHT)}
                </div>
                <fieldset class="checks">
                  <legend>Options</legend>
                  ${checkbox("capture-full-page", "fullPage", "Full page")}
                  ${checkbox("capture-hide-cookies", "hideCookieBanners", "Hide cookie banners")}
                  ${checkbox("capture-block-ads", "blockAds", "Block ads")}
                  ${checkbox(
                    "capture-hide-annoyances",
                    "hideAnnoyances",
                    "Hide chat widgets and pop-ups",
                  )}
                  ${checkbox("capture-transparent", "transparent", "Transparent background")}
                </fieldset>
                <div class="field">
                  <label for="capture-styles">Custom CSS (optional)</label>
                  <textarea id="capture-styles" name="styles" rows="3" spellcheck="false"
                    maxlength="${MAX_STYLES_BYTES}"
                    placeholder="header { display: none !important; }"></textarea>
                </div>
                ${checkbox("capture-refresh", "forceRefresh", "Refresh (skip the cached capture)")}
                <button type="submit" id="capture-submit"
                  aria-keyshortcuts="Control+Enter Meta+Enter">Capture</button>
                ${pageDownloads()}
              </form>
            </section>
            <section class="card" aria-labelledby="post-title">
              <h2 id="post-title">Post card</h2>
              <form id="post-form">
                <div class="field">
                  <label for="post-ref">Post id or URL</label>
                  <input type="text" id="post-ref" name="post" inputmode="url" spellcheck="false"
                    required placeholder="https://x.com/user/status/1234567890">
                </div>
                ${segmented("Card colours", "cardTheme", LIGHT_DARK)}
                <button type="submit" id="post-submit">Load post</button>
              </form>
            </section>
            <section class="card" aria-labelledby="frame-title">
              <h2 id="frame-title">Frame</h2>
              ${frameForm()}
            </section>
            <section class="card" aria-labelledby="export-title">
              <h2 id="export-title">Export</h2>
              <form id="export-form">
                <div class="row">
                  <div class="field">
                    <label for="export-format">Format</label>
                    <select id="export-format" name="format">
                      ${options(EXPORT_FORMATS, FORMAT_LABELS)}
                    </select>
                  </div>
                  <div class="field">
                    <label for="export-preset">Quality</label>
                    <select id="export-preset" name="qualityPreset">
                      ${options(QUALITY_PRESETS, PRESET_LABELS)}
                    </select>
                  </div>
                </div>
                <div class="actions">
                  <button type="submit" id="export-submit" disabled>Export and download</button>
                  <button type="button" id="copy-image" class="secondary" disabled>Copy image</button>
                </div>
                <p class="result" id="export-result" role="status"></p>
                <a id="export-link" hidden>Download again</a>
              </form>
            </section>
          </div>
          <section class="stage" id="stage" aria-labelledby="stage-title" aria-busy="false">
            <h2 id="stage-title" class="visually-hidden">Preview</h2>
            <div class="status-bar">
              <progress id="progress" aria-label="Working" hidden></progress>
              <p id="status" role="status" tabindex="-1">Capture a page, load a post or bring your
                own image to start.</p>
              <button type="button" id="cancel" class="secondary" hidden>Cancel</button>
            </div>
            <div class="error" id="error" role="alert" hidden>
              <p class="error-title" id="error-title"></p>
              <p id="error-hint"></p>
              <p id="error-wait" hidden></p>
            </div>
            <div class="canvas-wrap" id="drop-zone" aria-label="Preview">
              <p class="empty" id="empty">Nothing to frame yet. Paste an image, drop one here, or
                capture a page.</p>
              <p class="drop-hint" id="drop-hint" hidden>Drop the image to frame it</p>
              <canvas id="canvas" width="0" height="0" role="img"
                aria-label="Framed image preview" data-fonts="${assets.fonts.join(" ")}"
                hidden></canvas>
            </div>
          </section>
        </main>
      </body>
    </html>
  `;
}
