// @ts-check
// A frame's design: the fields a client sends (on a capture, to POST /api/frame, or from the
// editor's form) resolved to one complete design with every default applied. Shared verbatim by
// the server and the editor, so both read a design the same way.

/** @typedef {[number, number, number]} Rgb */
/**
 * @typedef {{ kind: "transparent" }
 *   | { kind: "solid", color: Rgb }
 *   | { kind: "gradient", from: Rgb, to: Rgb, angle: number }} Background
 */
/** @typedef {false | "light" | "dark" | "auto"} BrowserBarStyle */
/** @typedef {"none" | "browser" | "laptop" | "phone" | "tablet"} DeviceKind */
/** @typedef {"contain" | "cover" | "top"} FitMode */
/** @typedef {{ width: number, height: number }} Size */
/** @typedef {{ from: string, to: string, angle?: number }} GradientFields */
/**
 * What a client sends; every field is optional.
 * @typedef {{
 *   background?: string | GradientFields,
 *   padding?: number,
 *   radius?: number,
 *   shadow?: number,
 *   browserBar?: BrowserBarStyle,
 *   device?: DeviceKind,
 *   size?: Size | string,
 *   fit?: FitMode,
 * }} FrameFields
 */
/**
 * A complete design.
 * @typedef {{
 *   background: Background,
 *   padding: number,
 *   radius: number,
 *   shadow: number,
 *   browserBar: BrowserBarStyle,
 *   device: DeviceKind,
 *   size: Size | null,
 *   fit: FitMode,
 * }} Design
 */

/**
 * The sizes social sites show a shared image at, in pixels (see docs/frames.md for where each
 * comes from).
 * @type {Readonly<Record<string, Size>>}
 */
export const SOCIAL_SIZES = Object.freeze({
  og: { width: 1200, height: 630 },
  x: { width: 1600, height: 900 },
  linkedin: { width: 1200, height: 627 },
  "instagram-square": { width: 1080, height: 1080 },
  "instagram-portrait": { width: 1080, height: 1350 },
  story: { width: 1080, height: 1920 },
});

/**
 * Named backgrounds: a gradient (from, to, CSS angle) or one colour.
 * @type {Readonly<Record<string, GradientFields | string>>}
 */
export const BACKGROUND_PRESETS = Object.freeze({
  iris: { from: "#6a5cff", to: "#ff7aa8", angle: 135 },
  ocean: { from: "#0ea5e9", to: "#4f46e5", angle: 135 },
  sunset: { from: "#f97316", to: "#db2777", angle: 135 },
  forest: { from: "#34d399", to: "#0f766e", angle: 135 },
  midnight: { from: "#1e293b", to: "#0f172a", angle: 180 },
  paper: "#f3f4f6",
});

export const DEVICES = /** @type {const} */ (["none", "browser", "laptop", "phone", "tablet"]);
export const FIT_MODES = /** @type {const} */ (["contain", "cover", "top"]);
export const BROWSER_BARS = /** @type {const} */ (["light", "dark", "auto"]);

/** Bounds of the numeric fields (also the API's). */
export const FRAME_LIMITS = Object.freeze({
  padding: 512,
  radius: 256,
  shadow: 100,
  /** A custom size's side, in pixels. */
  side: { min: 16, max: 4096 },
});

/** What an empty `frame: {}` means: the editor's own starting design. */
export const DEFAULT_FIELDS = Object.freeze({
  background: "iris",
  padding: 64,
  radius: 12,
  shadow: 40,
  browserBar: /** @type {BrowserBarStyle} */ (false),
  device: /** @type {DeviceKind} */ ("none"),
  fit: /** @type {FitMode} */ ("contain"),
});

const HEX = /^#([0-9a-f]{6})$/i;

/**
 * "#rrggbb" as [r, g, b], or null.
 * @param {string} text
 * @returns {Rgb | null}
 */
export function parseHex(text) {
  const m = HEX.exec(text.trim());
  if (!m) return null;
  const n = parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * [r, g, b] as "#rrggbb".
 * @param {Rgb} rgb
 */
export function toHex(rgb) {
  return "#" + rgb.map((v) => v.toString(16).padStart(2, "0")).join("");
}

/**
 * Why a background field cannot be used, or null when it can.
 * @param {unknown} value
 * @returns {string | null}
 */
export function backgroundProblem(value) {
  if (typeof value === "string") {
    if (value === "transparent" || value in BACKGROUND_PRESETS || parseHex(value)) return null;
    return `must be "#rrggbb", "transparent", a gradient or one of ${
      Object.keys(BACKGROUND_PRESETS).join(", ")
    }`;
  }
  if (typeof value === "object" && value !== null) {
    const { from, to, angle } = /** @type {Record<string, unknown>} */ (value);
    if (typeof from !== "string" || !parseHex(from)) return 'from must be "#rrggbb"';
    if (typeof to !== "string" || !parseHex(to)) return 'to must be "#rrggbb"';
    if (angle !== undefined && (typeof angle !== "number" || !Number.isFinite(angle))) {
      return "angle must be a number of degrees";
    }
    return null;
  }
  return "must be a string or a gradient object";
}

/**
 * A background field as a Background.
 * @param {string | GradientFields} value
 * @returns {Background}
 */
function resolveBackground(value) {
  const named = typeof value === "string" ? BACKGROUND_PRESETS[value] : undefined;
  const field = named ?? value;
  if (typeof field === "string") {
    if (field === "transparent") return { kind: "transparent" };
    const color = parseHex(field);
    if (!color) throw new RangeError(`background ${backgroundProblem(field)}`);
    return { kind: "solid", color };
  }
  const from = parseHex(field.from);
  const to = parseHex(field.to);
  if (!from || !to) throw new RangeError(`background ${backgroundProblem(field)}`);
  // CSS angles: 0deg points up, 90deg right; kept in [0, 360).
  const angle = (((field.angle ?? 135) % 360) + 360) % 360;
  return { kind: "gradient", from, to, angle };
}

/**
 * A size field (a name from SOCIAL_SIZES or { width, height }) as a Size.
 * @param {Size | string} value
 * @returns {Size}
 */
function resolveSize(value) {
  if (typeof value === "string") {
    const named = SOCIAL_SIZES[value];
    if (!named) throw new RangeError(`size must be one of ${Object.keys(SOCIAL_SIZES).join(", ")}`);
    return { ...named };
  }
  return { width: Math.round(value.width), height: Math.round(value.height) };
}

/**
 * The fields with every default applied. The server validates the fields first (with the API's
 * schema), so a RangeError here is a programming error or an editor value out of range.
 * @param {FrameFields} [fields]
 * @returns {Design}
 */
export function resolveDesign(fields = {}) {
  const merged = { ...DEFAULT_FIELDS, ...withoutUndefined(fields) };
  return {
    background: resolveBackground(merged.background),
    padding: clamp(Math.round(merged.padding), 0, FRAME_LIMITS.padding),
    radius: clamp(Math.round(merged.radius), 0, FRAME_LIMITS.radius),
    shadow: clamp(Math.round(merged.shadow), 0, FRAME_LIMITS.shadow),
    browserBar: merged.browserBar,
    device: merged.device,
    size: "size" in merged && merged.size !== undefined ? resolveSize(merged.size) : null,
    fit: merged.fit,
  };
}

/**
 * The fields of `fields` that differ from the defaults: the shortest request for the same design
 * (what the editor's "copy as API request" shows).
 * @param {FrameFields} fields
 * @returns {FrameFields}
 */
export function minimalFields(fields) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [name, value] of Object.entries(withoutUndefined(fields))) {
    const fallback = /** @type {Record<string, unknown>} */ (DEFAULT_FIELDS)[name];
    if (JSON.stringify(value) !== JSON.stringify(fallback)) out[name] = value;
  }
  return /** @type {FrameFields} */ (out);
}

/**
 * @template {object} T
 * @param {T} value
 * @returns {T}
 */
function withoutUndefined(value) {
  return /** @type {T} */ (
    Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))
  );
}

/**
 * @param {number} value
 * @param {number} low
 * @param {number} high
 */
function clamp(value, low, high) {
  return Math.min(high, Math.max(low, value));
}
