// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// The frame form as the API's `frame` fields and back: one reading of the controls that the
// preview, "Copy as API request" and "Copy link" all share, and a design from a link put back
// into the controls.
import {
  BACKGROUND_PRESETS,
  BROWSER_BARS,
  DEVICES,
  FIT_MODES,
  FRAME_LIMITS,
  parseHex,
  SOCIAL_SIZES,
  toHex,
} from "../frame/design.js";
import { byId } from "./shared.js";

/** @typedef {import("../frame/design.js").FrameFields} FrameFields */

const inputs = {
  background: byId("background", HTMLSelectElement),
  from: byId("color-from", HTMLInputElement),
  to: byId("color-to", HTMLInputElement),
  angle: byId("angle", HTMLInputElement),
  padding: byId("padding", HTMLInputElement),
  radius: byId("radius", HTMLInputElement),
  shadow: byId("shadow", HTMLInputElement),
  browserBar: byId("browser-bar", HTMLSelectElement),
  device: byId("frame-device", HTMLSelectElement),
  size: byId("frame-size", HTMLSelectElement),
  fit: byId("fit", HTMLSelectElement),
};
const SLIDERS = /** @type {const} */ (["angle", "padding", "radius", "shadow"]);

/** The hash that carries a design in a link: `#frame=<JSON, URI-encoded>`. */
const LINK_PREFIX = "#frame=";

/**
 * The form's design as the API's `frame` fields (every field, defaults included).
 * Read from the elements, not FormData: a disabled control is left out of FormData.
 * @returns {FrameFields}
 */
export function frameFields() {
  const kind = inputs.background.value;
  /** @type {FrameFields["background"]} */
  let background = kind;
  if (kind === "color") background = inputs.from.value;
  if (kind === "gradient") {
    background = {
      from: inputs.from.value,
      to: inputs.to.value,
      angle: Number(inputs.angle.value),
    };
  }
  const size = inputs.size.value;
  return {
    background,
    padding: Number(inputs.padding.value),
    radius: Number(inputs.radius.value),
    shadow: Number(inputs.shadow.value),
    browserBar: inputs.browserBar.value === "off"
      ? false
      : /** @type {"light" | "dark" | "auto"} */ (inputs.browserBar.value),
    device: /** @type {FrameFields["device"]} */ (inputs.device.value),
    ...(size && {
      size,
      fit: /** @type {FrameFields["fit"]} */ (inputs.fit.value),
    }),
  };
}

/** Shows the sliders' values and enables only the controls the chosen design uses. */
export function refreshFrameControls() {
  for (const name of SLIDERS) {
    byId(`${inputs[name].id}-out`, HTMLOutputElement).textContent = inputs[name].value;
  }
  const kind = inputs.background.value;
  inputs.from.disabled = kind !== "color" && kind !== "gradient";
  inputs.to.disabled = kind !== "gradient";
  inputs.angle.disabled = kind !== "gradient";
  inputs.fit.disabled = inputs.size.value === "";
}

/**
 * Sets `input` to an integer in 0..max; anything else leaves it as it was.
 * @param {HTMLInputElement} input
 * @param {unknown} value
 * @param {number} max
 */
function setNumber(input, value, max) {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= max) {
    input.value = String(value);
  }
}

/**
 * Sets a select to `value` when it is one of its options.
 * @param {HTMLSelectElement} select
 * @param {unknown} value
 */
function setChoice(select, value) {
  if (typeof value !== "string") return;
  if ([...select.options].some((option) => option.value === value)) select.value = value;
}

/**
 * A "#rrggbb" colour in the form the colour input holds, or null.
 * @param {unknown} value
 */
function colourOf(value) {
  const rgb = typeof value === "string" ? parseHex(value) : null;
  return rgb ? toHex(rgb) : null;
}

/**
 * Puts a design (the API's `frame` fields, from a link) into the form. A link carries only the
 * fields that differ from the defaults, so the form starts from its defaults; a field the form
 * cannot hold, an unknown field or a value out of range is ignored, so a hand-edited link
 * still opens.
 * @param {unknown} fields
 */
export function applyFrameFields(fields) {
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return;
  const given = /** @type {Record<string, unknown>} */ (fields);
  for (const input of Object.values(inputs)) {
    if (input instanceof HTMLSelectElement) {
      for (const option of input.options) option.selected = option.defaultSelected;
    } else {
      input.value = input.defaultValue;
    }
  }
  const background = given.background;
  if (typeof background === "string") {
    const colour = colourOf(background);
    if (background in BACKGROUND_PRESETS || background === "transparent") {
      inputs.background.value = background;
    } else if (colour) {
      inputs.background.value = "color";
      inputs.from.value = colour;
    }
  } else if (typeof background === "object" && background !== null) {
    const { from, to, angle } = /** @type {Record<string, unknown>} */ (background);
    const [first, second] = [colourOf(from), colourOf(to)];
    if (first && second) {
      inputs.background.value = "gradient";
      inputs.from.value = first;
      inputs.to.value = second;
      setNumber(inputs.angle, angle, 359);
    }
  }
  setNumber(inputs.padding, given.padding, FRAME_LIMITS.padding);
  setNumber(inputs.radius, given.radius, FRAME_LIMITS.radius);
  setNumber(inputs.shadow, given.shadow, FRAME_LIMITS.shadow);
  if (given.browserBar === false) inputs.browserBar.value = "off";
  else if (BROWSER_BARS.includes(/** @type {never} */ (given.browserBar))) {
    setChoice(inputs.browserBar, given.browserBar);
  }
  if (DEVICES.includes(/** @type {never} */ (given.device))) setChoice(inputs.device, given.device);
  if (typeof given.size === "string" && given.size in SOCIAL_SIZES) {
    setChoice(inputs.size, given.size);
  }
  if (FIT_MODES.includes(/** @type {never} */ (given.fit))) setChoice(inputs.fit, given.fit);
  refreshFrameControls();
}

/**
 * The design carried by a link's hash, or null when there is none or it is not JSON.
 * @param {string} hash
 * @returns {unknown}
 */
export function designOfHash(hash) {
  if (!hash.startsWith(LINK_PREFIX)) return null;
  try {
    return JSON.parse(decodeURIComponent(hash.slice(LINK_PREFIX.length)));
  } catch {
    return null;
  }
}

/**
 * This page's address with `fields` in its hash: opening it applies the design.
 * @param {FrameFields} fields
 */
export function linkOf(fields) {
  const url = new URL(location.href);
  url.hash = LINK_PREFIX.slice(1) + encodeURIComponent(JSON.stringify(fields));
  return url.href;
}
