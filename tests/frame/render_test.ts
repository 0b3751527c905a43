/**
 * The frame renderer on its own, pixel by pixel: exact sizes, the background at the corners and
 * the gradient's direction, the capture's pixels where the layout says, corners outside the
 * radius, the shadow, the browser bar's text and icon, devices, the fits, and determinism.
 */
import assert from "node:assert/strict";
import { type FrameFields, resolveDesign, SOCIAL_SIZES } from "../../lib/frame/design.js";
import { renderFrame } from "../../lib/frame/render.js";
import type { Rgba } from "../../lib/frame/raster.js";
import { loadFrameFonts } from "../../lib/frame/fonts.ts";

/** A capture whose every pixel says where it is (opaque). */
function patterned(width: number, height: number): Rgba {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i += 4) {
      data[i] = x & 255;
      data[i + 1] = y & 255;
      data[i + 2] = ((x >> 8) * 16 + (y >> 8) * 64) & 255;
      data[i + 3] = 255;
    }
  }
  return { width, height, data };
}

/** One colour, opaque. */
function solid(width: number, height: number, rgb: [number, number, number]): Rgba {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set([...rgb, 255], i);
  return { width, height, data };
}

const at = (image: Rgba, x: number, y: number) =>
  Array.from(image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4));

const frame = (source: Rgba, fields: FrameFields, options = {}) =>
  renderFrame(source, resolveDesign(fields), options);

Deno.test("every social size gives exactly its size, with every fit", () => {
  const capture = patterned(640, 400);
  for (const [name, size] of Object.entries(SOCIAL_SIZES)) {
    for (const fit of ["contain", "cover", "top"] as const) {
      const { image } = frame(capture, { size: name, fit });
      assert.deepEqual([image.width, image.height], [size.width, size.height], `${name} ${fit}`);
      assert.equal(image.data.length, size.width * size.height * 4);
    }
  }
  const custom = frame(capture, { size: { width: 333, height: 777 } }).image;
  assert.deepEqual([custom.width, custom.height], [333, 777]);
});

Deno.test("without a size the capture keeps its pixels, padding around it", () => {
  const capture = patterned(300, 200);
  const { image, layout } = frame(capture, { padding: 20, radius: 0, shadow: 0 });
  assert.deepEqual([image.width, image.height], [340, 240]);
  assert.deepEqual(layout.capture, { x: 20, y: 20, width: 300, height: 200 });
  assert.equal(layout.scale, 1);
  for (let y = 0; y < 200; y++) {
    for (let x = 0; x < 300; x++) assert.deepEqual(at(image, 20 + x, 20 + y), at(capture, x, y));
  }
});

Deno.test("padding and radius follow the capture's pixel ratio", () => {
  const { image, layout } = frame(patterned(600, 400), { padding: 20, shadow: 0 }, {
    pixelRatio: 2,
  });
  assert.deepEqual([image.width, image.height], [680, 480]);
  assert.deepEqual([layout.capture.x, layout.capture.y], [40, 40]);
});

Deno.test("a solid background fills the corners; a gradient runs the way its angle points", () => {
  const capture = solid(100, 100, [0, 0, 0]);
  const plain = frame(capture, { background: "#3a66c9", shadow: 0 }).image;
  for (const [x, y] of [[0, 0], [plain.width - 1, 0], [0, plain.height - 1]]) {
    assert.deepEqual(at(plain, x, y), [0x3a, 0x66, 0xc9, 255]);
  }
  const across = frame(capture, {
    background: { from: "#0a0a0a", to: "#ffffff", angle: 90 },
    shadow: 0,
  }).image;
  assert.deepEqual(at(across, 0, 0), [10, 10, 10, 255]);
  assert.deepEqual(at(across, across.width - 1, 0), [255, 255, 255, 255]);
  // Left to right: each column at least as light as the one before, rows alike.
  for (let x = 1; x < across.width; x++) assert.ok(at(across, x, 5)[0] >= at(across, x - 1, 5)[0]);
  assert.deepEqual(at(across, 50, 0), at(across, 50, across.height - 1));
  const down = frame(capture, {
    background: { from: "#ff0000", to: "#0000ff", angle: 180 },
    shadow: 0,
  }).image;
  assert.deepEqual(at(down, 0, 0), [255, 0, 0, 255]);
  assert.deepEqual(at(down, 0, down.height - 1), [0, 0, 255, 255]);
  // The default (135deg) runs from the top left corner to the bottom right one.
  const preset = frame(capture, { background: "iris", shadow: 0 }).image;
  assert.deepEqual(at(preset, 0, 0), [0x6a, 0x5c, 0xff, 255]);
  assert.deepEqual(at(preset, preset.width - 1, preset.height - 1), [0xff, 0x7a, 0xa8, 255]);
});

Deno.test("a transparent background stays transparent around the capture", () => {
  const { image } = frame(solid(50, 50, [9, 9, 9]), { background: "transparent", shadow: 0 });
  assert.equal(at(image, 0, 0)[3], 0);
  assert.deepEqual(at(image, 64 + 25, 64 + 25), [9, 9, 9, 255]);
});

Deno.test("pixels outside the rounded corners are background, inside the capture", () => {
  const capture = solid(200, 100, [0, 0, 0]);
  const { image, layout } = frame(capture, { background: "#ffffff", radius: 20, shadow: 0 });
  const { x, y, width, height } = layout.capture;
  for (const [cx, cy] of [[x, y], [x + width - 1, y], [x, y + height - 1]]) {
    assert.deepEqual(at(image, cx, cy), [255, 255, 255, 255], `corner ${cx},${cy}`);
  }
  assert.deepEqual(at(image, x + 20, y), [0, 0, 0, 255]);
  assert.deepEqual(at(image, x, y + 20), [0, 0, 0, 255]);
  // Along the arc the edge is anti-aliased: grey pixels between the two.
  let grey = 0;
  for (let cy = y; cy < y + 20; cy++) {
    for (let cx = x; cx < x + 20; cx++) if (at(image, cx, cy)[0] % 255 !== 0) grey++;
  }
  assert.ok(grey >= 20, `anti-aliased arc pixels: ${grey}`);
});

Deno.test("the shadow is darker than the background below the capture, none without it", () => {
  const capture = solid(200, 100, [255, 255, 255]);
  const lit = frame(capture, { background: "#ffffff", shadow: 60 });
  const flat = frame(capture, { background: "#ffffff", shadow: 0 });
  const { x, y, width, height } = lit.layout.capture;
  const below = at(lit.image, x + width / 2, y + height + 8);
  assert.ok(below[0] < 230, `shadow below: ${below}`);
  assert.deepEqual(at(flat.image, x + width / 2, y + height + 8), [255, 255, 255, 255]);
  // Softer above (the light comes from above): lighter than below at the same distance.
  assert.ok(at(lit.image, x + width / 2, y - 8)[0] > below[0]);
});

Deno.test("the browser bar shows the page's title in text and its icon", async () => {
  const fonts = await loadFrameFonts();
  const capture = solid(800, 400, [255, 255, 255]);
  const icon = solid(32, 32, [220, 20, 60]);
  const page = { title: "Hello from the bar", host: "example.com", themeColor: null, icon };
  const withText = frame(capture, { browserBar: "light", shadow: 0 }, { page, fonts });
  const bar = withText.layout.bar!;
  assert.ok(bar, "a bar");
  assert.equal(bar.height, 40);
  assert.equal(withText.layout.capture.y, bar.y + 40);
  const textPixels = (image: Rgba) => {
    let dark = 0;
    for (let y = bar.y; y < bar.y + bar.height; y++) {
      for (let x = bar.x + 110; x < bar.x + bar.width; x++) if (at(image, x, y)[0] < 100) dark++;
    }
    return dark;
  };
  assert.ok(textPixels(withText.image) > 100, `title pixels: ${textPixels(withText.image)}`);
  const untitled = frame(capture, { browserBar: "light", shadow: 0 }, {
    page: { ...page, title: "" },
    fonts,
  });
  assert.equal(textPixels(untitled.image), 0);
  // The icon: 18 px square after the buttons, drawn from the page's own pixels.
  const iconX = Math.round(bar.x + 40 * 1.9), iconY = Math.round(bar.y + (40 - 18) / 2);
  assert.deepEqual(at(withText.image, iconX + 9, iconY + 9), [220, 20, 60, 255]);
  // Dark style: light text on a dark bar.
  const dark = frame(capture, { browserBar: "dark", shadow: 0 }, { page, fonts });
  assert.ok(at(dark.image, bar.x + bar.width - 5, bar.y + 20)[0] < 80);
});

Deno.test("auto takes the page's theme colour; without an icon the host's initial", async () => {
  const fonts = await loadFrameFonts();
  const page = { title: "T", host: "zeta.example", themeColor: "#0a7d32", icon: null };
  const { image, layout } = frame(solid(600, 300, [255, 255, 255]), {
    browserBar: "auto",
    shadow: 0,
  }, { page, fonts });
  const bar = layout.bar!;
  assert.deepEqual(at(image, bar.x + bar.width - 3, bar.y + 20), [0x0a, 0x7d, 0x32, 255]);
  // The tile is white on a dark theme, and its letter is drawn in the bar's colour.
  const tileX = Math.round(bar.x + 40 * 1.9), tileY = Math.round(bar.y + 11);
  assert.deepEqual(at(image, tileX + 2, tileY + 9), [255, 255, 255, 255]);
  let letter = 0;
  for (let y = tileY; y < tileY + 18; y++) {
    for (let x = tileX; x < tileX + 18; x++) if (at(image, x, y)[0] < 128) letter++;
  }
  assert.ok(letter > 5, `initial pixels: ${letter}`);
});

Deno.test("a phone holds a mobile capture: dark body around it, island over its top", () => {
  const capture = patterned(390, 844);
  const { image, layout } = frame(capture, { device: "phone", background: "#ffffff" });
  const { x, y, width, height } = layout.capture;
  assert.deepEqual([width, height], [390, 844]);
  // Body left of the screen and below it.
  assert.ok(at(image, x - 8, y + height / 2)[0] < 80);
  assert.ok(at(image, x + width / 2, y + height + 8)[0] < 80);
  // The capture's own pixels mid-screen, the island black at the top centre.
  assert.deepEqual(at(image, x + 100, y + 400), at(capture, 100, 400));
  assert.deepEqual(at(image, x + width / 2, y + 20), [0, 0, 0, 255]);
  // A phone ignores the browser bar.
  assert.equal(frame(capture, { device: "phone", browserBar: "dark" }).layout.bar, null);
});

Deno.test("a page longer than a device's screen shows its top", () => {
  const capture = patterned(400, 3000);
  const phone = frame(capture, { device: "phone" }).layout;
  assert.deepEqual(phone.crop, { x: 0, y: 0, width: 400, height: Math.round(400 * 19.5 / 9) });
  const laptop = frame(patterned(1280, 5000), { device: "laptop" }).layout;
  assert.deepEqual(laptop.crop, { x: 0, y: 0, width: 1280, height: 800 });
  const tablet = frame(patterned(800, 3000), { device: "tablet" }).layout;
  assert.equal(tablet.crop.height, Math.round(800 * 4 / 3));
});

Deno.test("laptop, tablet and browser frames draw around the capture", () => {
  const capture = solid(640, 400, [255, 255, 255]);
  for (const device of ["laptop", "tablet", "browser"] as const) {
    const { image, layout } = frame(capture, { device, background: "#8a8a8a", shadow: 0 });
    const { x, y, width, height } = layout.capture;
    assert.deepEqual(at(image, x + width / 2, y + height / 2), [255, 255, 255, 255], device);
    if (device === "browser") {
      assert.ok(layout.bar, "browser brings its bar");
      continue;
    }
    // A dark bezel left of the screen.
    assert.ok(at(image, x - 3, y + height / 2)[0] < 60, `${device} bezel`);
  }
});

Deno.test("contain shows all of the capture scaled to fit; cover fills and cuts evenly", () => {
  const capture = patterned(1920, 1080);
  const contain = frame(capture, { size: "og", padding: 40, shadow: 0 }).layout;
  assert.deepEqual(contain.crop, { x: 0, y: 0, width: 1920, height: 1080 });
  assert.ok(contain.capture.width <= 1200 - 80 && contain.capture.height <= 630 - 80);
  assert.ok(contain.capture.width === 1120 || contain.capture.height === 550);
  const cover = frame(capture, { size: "instagram-square", fit: "cover", padding: 40 }).layout;
  assert.deepEqual(
    [cover.capture.x, cover.capture.y, cover.capture.width, cover.capture.height],
    [40, 40, 1000, 1000],
  );
  assert.equal(cover.crop.height, 1080);
  assert.equal(cover.crop.x, (1920 - cover.crop.width) / 2);
});

Deno.test("a scaled capture is the capture's own pixels averaged down", () => {
  // Blocks of 4x4 pixels of one colour: halved, each output pixel is its block's colour.
  const width = 400, height = 200;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i += 4) {
      data.set([(x >> 2) * 2 & 255, (y >> 2) * 5 & 255, 128, 255], i);
    }
  }
  const capture = { width, height, data };
  const { image, layout } = frame(capture, {
    size: { width: 200 + 20, height: 100 + 20 },
    padding: 10,
    radius: 0,
    shadow: 0,
  });
  assert.equal(layout.scale, 0.5);
  const { x, y } = layout.capture;
  for (const [px, py] of [[0, 0], [37, 21], [199, 99]]) {
    const block = at(capture, px * 2, py * 2);
    const shown = at(image, x + px, y + py);
    for (let c = 0; c < 4; c++) assert.ok(Math.abs(shown[c] - block[c]) <= 2, `${px},${py}`);
  }
});

Deno.test("top shows the capture's top and fades its cut into the background", () => {
  const capture = patterned(1280, 6000);
  const { image, layout } = frame(capture, {
    size: "instagram-portrait",
    fit: "top",
    background: "#1a2b3c",
    shadow: 0,
  });
  assert.equal(layout.crop.y, 0);
  assert.ok(layout.fadeRows > 0);
  assert.ok(layout.capture.y + layout.capture.height > image.height, "runs off the bottom");
  // The last row is the background itself; halfway up the fade, a mix.
  for (const x of [0, 300, 700, image.width - 1]) {
    assert.deepEqual(at(image, x, image.height - 1), [0x1a, 0x2b, 0x3c, 255]);
  }
  // Its top shows: the capture's first rows, scaled (green is the row, red the column).
  const shown = at(image, layout.capture.x + 60, layout.capture.y + 30);
  const source = at(
    capture,
    layout.crop.x + Math.round(60 / layout.scale),
    Math.round(30 / layout.scale),
  );
  assert.ok(Math.abs(shown[1] - source[1]) <= 3, `row ${shown} vs ${source}`);
});

Deno.test("rendering is deterministic: the same design gives the same bytes", async () => {
  const fonts = await loadFrameFonts();
  const capture = patterned(700, 500);
  const page = { title: "Déjà vu — Привет", host: "example.com", themeColor: null, icon: null };
  const design: FrameFields = {
    background: { from: "#1a2b3c", to: "#ddeeff", angle: 33 },
    browserBar: "dark",
    size: "x",
    shadow: 77,
    radius: 30,
  };
  const a = frame(capture, design, { page, fonts }).image;
  const b = frame(capture, design, { page, fonts }).image;
  assert.deepEqual(a.data, b.data);
});
