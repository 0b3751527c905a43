// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// The last settings (device, colours, capture options, the download's format, frame, format,
// preset) are remembered in localStorage, so the next visit starts where this one left off.

const KEY = "shotline.editor.settings";
// Form field names; the URL, post and Refresh fields are left out on purpose (they are one-off).
const REMEMBERED = [
  "deviceType",
  "colorScheme",
  "scale",
  "device",
  "width",
  "height",
  "fullPage",
  "hideCookieBanners",
  "blockAds",
  "hideAnnoyances",
  "transparent",
  "styles",
  "takeAs",
  "cardTheme",
  "background",
  "colorFrom",
  "colorTo",
  "angle",
  "padding",
  "radius",
  "shadow",
  "browserBar",
  "frameDevice",
  "frameSize",
  "fit",
  "format",
  "qualityPreset",
];

/** @param {string} name */
const fieldsNamed = (name) => /** @type {NodeListOf<HTMLInputElement | HTMLSelectElement>} */ (
  document.querySelectorAll(`[name="${name}"]`)
);

/**
 * A field's value: a string, or for a checkbox whether it is ticked.
 * @param {string} name
 * @returns {string | boolean | null}
 */
function currentValue(name) {
  for (const field of fieldsNamed(name)) {
    if (field instanceof HTMLInputElement && field.type === "checkbox") return field.checked;
    if (field instanceof HTMLInputElement && field.type === "radio") {
      if (field.checked) return field.value;
    } else {
      return field.value;
    }
  }
  return null;
}

/**
 * Sets a field only to a value it can hold (a stored value may come from an older page).
 * @param {string} name
 * @param {unknown} value
 */
function applyValue(name, value) {
  for (const field of fieldsNamed(name)) {
    if (field instanceof HTMLInputElement && field.type === "checkbox") {
      if (typeof value === "boolean") field.checked = value;
    } else if (typeof value !== "string") {
      continue;
    } else if (field instanceof HTMLInputElement && field.type === "radio") {
      if (field.value === value) field.checked = true;
    } else if (field instanceof HTMLSelectElement) {
      if ([...field.options].some((option) => option.value === value)) field.value = value;
    } else {
      field.value = value;
      // Browsers sanitise what an input cannot hold (a colour, a number out of range).
      if (field.value !== value) field.value = field.defaultValue;
    }
  }
}

// Storage can be refused (private modes, disabled site data): the page then just forgets.
function read() {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? "{}");
    return stored && typeof stored === "object" ? stored : {};
  } catch {
    return {};
  }
}

function save() {
  /** @type {Record<string, string | boolean>} */
  const values = {};
  for (const name of REMEMBERED) {
    const value = currentValue(name);
    if (value !== null) values[name] = value;
  }
  try {
    localStorage.setItem(KEY, JSON.stringify(values));
  } catch {
    // Not remembered this time; nothing the user needs to act on.
  }
}

/** Puts the remembered settings back into the page's fields and saves every later change. */
export function rememberSettings() {
  const stored = read();
  for (const name of REMEMBERED) applyValue(name, stored[name]);
  document.addEventListener("change", (event) => {
    const target = event.target;
    if (target instanceof HTMLElement && REMEMBERED.includes(target.getAttribute("name") ?? "")) {
      save();
    }
  });
}
