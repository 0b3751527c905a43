/**
 * The frame card's form: the API's `frame` fields as controls (wired by frame_form.js), and the
 * buttons that hand the current design over as an API request or a link.
 */
import { html } from "hono/html";
import {
  BACKGROUND_PRESETS,
  DEFAULT_FIELDS,
  DEVICES,
  FIT_MODES,
  FRAME_LIMITS,
  SOCIAL_SIZES,
} from "../frame/design.js";

type Choices = Array<[value: string, label: string]>;

const capitalised = (name: string) => name[0].toUpperCase() + name.slice(1);

/** The presets by name, then the background kinds that take colours from the fields below. */
const BACKGROUNDS: Choices = [
  ...Object.keys(BACKGROUND_PRESETS).map((name): [string, string] => [name, capitalised(name)]),
  ["color", "One colour"],
  ["gradient", "Gradient (two colours)"],
  ["transparent", "Transparent"],
];
const BARS: Choices = [["off", "Off"], ["light", "Light"], ["dark", "Dark"], [
  "auto",
  "Auto (the page's theme colour)",
]];
const SIZES: Choices = [
  ["", "Original (fits the image)"],
  ...Object.entries(SOCIAL_SIZES).map(([name, { width, height }]): [string, string] => [
    name,
    `${name} (${width}×${height})`,
  ]),
];
const FITS: Record<string, string> = {
  contain: "Contain (all of it)",
  cover: "Cover (fill, cut the edges)",
  top: "Top (fill the width, from the top)",
};

const select = (id: string, name: string, label: string, choices: Choices, selected: string) =>
  html`
    <div class="field">
      <label for="${id}">${label}</label>
      <select id="${id}" name="${name}">
        ${choices.map(([value, text]) =>
          html`<option value="${value}" ${value === selected ? "selected" : ""}>${text}</option>`
        )}
      </select>
    </div>
  `;

const slider = (id: string, label: string, max: number, value: number) =>
  html`
    <div class="field slider">
      <label
        for="${id}">${label} <output id="${id}-out" for="${id}">${value}</output></label>
      <input type="range" id="${id}" name="${id}" min="0" max="${max}"
        value="${value}">
    </div>
  `;

const colour = (id: string, name: string, label: string, value: string) =>
  html`
    <div class="field">
      <label for="${id}">${label}</label>
      <input type="color" id="${id}" name="${name}" value="${value}">
    </div>
  `;

/** The frame form: background, padding, corners, shadow, bar, device, size and fit. */
export function frameForm() {
  const iris = BACKGROUND_PRESETS.iris as { from: string; to: string; angle: number };
  return html`
    <form id="frame-form">
      ${select("background", "background", "Background", BACKGROUNDS, DEFAULT_FIELDS.background)}
      <div class="row">
        ${colour("color-from", "colorFrom", "Colour 1", iris.from)}
        ${colour("color-to", "colorTo", "Colour 2", iris.to)}
      </div>
      ${slider("angle", "Gradient angle (°)", 359, iris.angle)}
      ${slider("padding", "Padding (px)", FRAME_LIMITS.padding, DEFAULT_FIELDS.padding)}
      ${slider("radius", "Rounded corners (px)", FRAME_LIMITS.radius, DEFAULT_FIELDS.radius)}
      ${slider("shadow", "Shadow", FRAME_LIMITS.shadow, DEFAULT_FIELDS.shadow)}
      ${select("browser-bar", "browserBar", "Browser bar (page title and icon)", BARS, "off")}
      ${select(
        "frame-device",
        "frameDevice",
        "Device",
        DEVICES.map((name): [string, string] => [name, capitalised(name)]),
        DEFAULT_FIELDS.device,
      )}
      <div class="row">
        ${select("frame-size", "frameSize", "Size", SIZES, "")}
        ${select(
          "fit",
          "fit",
          "Fit (with a size)",
          FIT_MODES.map((mode): [string, string] => [mode, FITS[mode]]),
          DEFAULT_FIELDS.fit,
        )}
      </div>
      <div class="actions">
        <button type="button" id="copy-api" class="secondary">Copy as API request</button>
        <button type="button" id="copy-link" class="secondary">Copy link</button>
      </div>
      <output id="api-request" class="api-request" for="frame-form" hidden></output>
    </form>
  `;
}
