// @ts-check
// The framed object around a capture: a plain window (rounded corners, optional browser bar) or
// a device drawn as vector shapes (laptop, phone, tablet; no third-party artwork). Every length
// follows the screen's size in whole output pixels (a laptop's width, a phone's or tablet's
// shorter side), so a device looks the same at any size.

/** @typedef {import("./raster.js").RoundRect} RoundRect */
/** @typedef {import("./raster.js").Rgba8} Rgba8 */
/** @typedef {import("./design.js").DeviceKind} DeviceKind */
/** @typedef {{ shape: RoundRect, color: Rgba8 }} Part */
/**
 * The object at the origin: its size, where the screen is (the bar on top, then the capture),
 * the parts drawn under and over the screen, and what casts the shadow.
 * @typedef {{
 *   width: number,
 *   height: number,
 *   screen: RoundRect,
 *   under: Part[],
 *   over: Part[],
 *   casts: RoundRect[],
 * }} DeviceShape
 */
/**
 * How big the object is for a screen of width W and height H: (W * across, H + W * along).
 * @typedef {{ across: number, along: number, maxAspect: (landscape: boolean) => number }} Proportions
 */

/** @type {Record<Exclude<DeviceKind, "none" | "browser">, Proportions>} */
const PROPORTIONS = {
  // Screen height over width at most 19.5:9 (a phone), 16:10 (a laptop), 4:3 (a tablet); a
  // longer capture shows its top.
  phone: { across: 1.1, along: 0.1, maxAspect: () => 19.5 / 9 },
  tablet: { across: 1.09, along: 0.09, maxAspect: (landscape) => (landscape ? 3 / 4 : 4 / 3) },
  laptop: { across: 1.2084, along: 0.12, maxAspect: () => 10 / 16 },
};

/**
 * The object's proportions (a window adds nothing around its screen).
 * @param {DeviceKind} device
 * @returns {Proportions}
 */
export function proportionsOf(device) {
  if (device === "none" || device === "browser") {
    return { across: 1, along: 0, maxAspect: () => Infinity };
  }
  return PROPORTIONS[device];
}

/**
 * @param {number} n
 * @returns {Rgba8}
 */
const grey = (n) => [n, n, n, 255];

/**
 * The object around a screen of `width` x `height` whole pixels (bar included).
 * @param {DeviceKind} device
 * @param {number} width
 * @param {number} height
 * @param {number} radius a window's corner radius in pixels (devices have their own)
 * @returns {DeviceShape}
 */
export function deviceShape(device, width, height, radius) {
  const w = width;
  const handheld = device === "phone" || device === "tablet";
  // A phone or tablet on its side keeps its bezels: they follow the screen's shorter side.
  const unit = handheld ? Math.min(w, height) : w;
  /** @param {number} f */
  const part = (f) => Math.round(unit * f);
  if (handheld) {
    const phone = device === "phone";
    const bezel = part(phone ? 0.05 : 0.045);
    const screenRadius = part(phone ? 0.11 : 0.018);
    const rim = Math.max(1, part(0.012));
    const body = { x: 0, y: 0, width: w + 2 * bezel, height: height + 2 * bezel };
    const outer = { ...body, radius: screenRadius + bezel };
    const inner = {
      x: rim,
      y: rim,
      width: body.width - 2 * rim,
      height: body.height - 2 * rim,
      radius: screenRadius + bezel - rim,
    };
    const screen = { x: bezel, y: bezel, width: w, height, radius: screenRadius };
    /** @type {Part[]} */
    const over = [];
    if (phone) {
      // The island over the top of the screen, as on current phones.
      const islandW = part(0.28), islandH = part(0.075);
      over.push({
        shape: {
          x: bezel + Math.round((w - islandW) / 2),
          y: bezel + part(0.025),
          width: islandW,
          height: islandH,
          radius: islandH / 2,
        },
        color: grey(0),
      });
    } else {
      const r = Math.max(1, part(0.006));
      over.push({
        shape: { x: body.width / 2 - r, y: bezel / 2 - r, width: 2 * r, height: 2 * r, radius: r },
        color: grey(10),
      });
    }
    return {
      width: body.width,
      height: body.height,
      screen,
      under: [
        { shape: outer, color: grey(phone ? 58 : 72) },
        { shape: inner, color: grey(phone ? 17 : 31) },
      ],
      over,
      casts: [outer],
    };
  }
  if (device === "laptop") {
    const side = part(0.03), top = part(0.04), chin = part(0.045);
    const lidW = w + 2 * side, lidH = top + height + chin;
    const deckW = Math.round(lidW * 1.14), deckH = Math.max(2, part(0.035));
    const lidX = Math.round((deckW - lidW) / 2);
    const rim = Math.max(1, part(0.006));
    const lid = { x: lidX, y: 0, width: lidW, height: lidH, radius: part(0.03) };
    const deck = { x: 0, y: lidH, width: deckW, height: deckH, radius: Math.round(deckH * 0.45) };
    const notchW = part(0.14), notchH = Math.max(1, Math.round(deckH * 0.4));
    const camera = Math.max(1, part(0.004));
    return {
      width: deckW,
      height: lidH + deckH,
      screen: { x: lidX + side, y: top, width: w, height, radius: part(0.006) },
      under: [
        { shape: lid, color: grey(43) },
        {
          shape: {
            x: lidX + rim,
            y: rim,
            width: lidW - 2 * rim,
            height: lidH - rim,
            radius: lid.radius - rim,
          },
          color: grey(13),
        },
        {
          shape: {
            x: lidX + lidW / 2 - camera,
            y: top / 2 - camera,
            width: 2 * camera,
            height: 2 * camera,
            radius: camera,
          },
          color: grey(58),
        },
        { shape: deck, color: [207, 210, 216, 255] },
        {
          shape: {
            x: Math.round((deckW - notchW) / 2),
            y: lidH,
            width: notchW,
            height: notchH,
            radius: notchH / 2,
          },
          color: [158, 162, 170, 255],
        },
      ],
      over: [],
      casts: [lid, deck],
    };
  }
  const window = { x: 0, y: 0, width: w, height, radius: Math.min(radius, w / 2, height / 2) };
  return { width: w, height, screen: window, under: [], over: [], casts: [window] };
}
