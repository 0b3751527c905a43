/** A favicon's bytes as a data: URL: the type read from the bytes, an .ico cut to one image. */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { iconDataUrl, iconKind, MAX_ICON_BYTES } from "../../../lib/capture/page/icon_bytes.ts";
import { readFavicon } from "../../../lib/capture/page/favicon.ts";
import type { Page } from "puppeteer-core";
import { icoImages, icoOf, noisePng, solidPng } from "../../../testing/icons.ts";

const text = (value: string) => new TextEncoder().encode(value);
const bytesOf = (dataUrl: string) => Buffer.from(dataUrl.split(",")[1], "base64");
const red = solidPng(16, [255, 0, 0]);

Deno.test("the icon's type comes from its bytes, never from what the server says", () => {
  const kinds: [Uint8Array, string | null][] = [
    [red, "image/png"],
    [Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), "image/jpeg"],
    [text("RIFF\x10\0\0\0WEBPVP8 "), "image/webp"],
    [text("GIF89a\x01\0\x01\0"), "image/gif"],
    [text("GIF87a\x01\0\x01\0"), "image/gif"],
    [concat(text("BM"), new Uint8Array(40)), "image/bmp"],
    [concat(new Uint8Array([0, 0, 0, 0x1c]), text("ftypavif"), new Uint8Array(8)), "image/avif"],
    [icoOf([{ side: 16, bytes: red }]), "image/x-icon"],
    [text('<svg xmlns="http://www.w3.org/2000/svg"/>'), "image/svg+xml"],
    [
      text(
        '\uFEFF<?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg>\n<svg viewBox="0 0 1 1">',
      ),
      "image/svg+xml",
    ],
    // What a site answers /favicon.ico with when it has none: its HTML, with a 200.
    [text("<!doctype html><html><body>Not found</body></html>"), null],
    [text("<svgx>"), null],
    [new Uint8Array(0), null],
    [Uint8Array.from([0, 0, 1, 0, 0, 0]), null], // an .ico of no image
  ];
  for (const [bytes, kind] of kinds) {
    assert.equal(iconKind(bytes), kind, new TextDecoder().decode(bytes.subarray(0, 40)));
  }
});

Deno.test("an icon is carried as it came, as a data: URL", () => {
  const url = iconDataUrl(red);
  assert.ok(url?.startsWith("data:image/png;base64,"));
  assert.deepEqual(new Uint8Array(bytesOf(url!)), red);
});

Deno.test("an .ico is cut to its one image nearest above 32 px", () => {
  const image = (side: number, bits = 32) => ({ side, bits, bytes: solidPng(side, [side, 0, 0]) });
  const cases: [number[], number][] = [
    [[16, 32, 48, 256], 32],
    [[256, 48, 16], 48],
    [[16, 24], 24],
    [[64], 64],
  ];
  for (const [sides, kept] of cases) {
    const url = iconDataUrl(icoOf(sides.map((side) => image(side))));
    assert.ok(url?.startsWith("data:image/x-icon;base64,"), `${sides}`);
    const images = icoImages(bytesOf(url!));
    assert.equal(images.length, 1, `${sides}`);
    assert.equal(images[0].side, kept, `${sides}`);
    assert.deepEqual(
      new Uint8Array(images[0].bytes),
      image(kept).bytes,
      `${sides}: copied as it is`,
    );
  }
  // Among equal sides, the most colour bits.
  const deep = icoOf([{ side: 32, bits: 8, bytes: red }, { side: 32, bits: 32, bytes: red }]);
  const kept = bytesOf(iconDataUrl(deep)!);
  assert.equal(new DataView(kept.buffer, kept.byteOffset).getUint16(12, true), 32);
});

Deno.test("an .ico whose directory points outside it, or an icon too large, is none", () => {
  const broken = icoOf([{ side: 32, bytes: red }]);
  new DataView(broken.buffer).setUint32(6 + 12, 10_000, true);
  assert.equal(iconDataUrl(broken), null);
  const large = noisePng(128);
  assert.ok(large.length > MAX_ICON_BYTES);
  assert.equal(iconDataUrl(large), null);
  // A large .ico whose 32 px image is small is fine: only that image is kept.
  const ico = iconDataUrl(icoOf([{ side: 128, bytes: large }, { side: 32, bytes: red }]));
  assert.ok(ico);
  assert.ok(bytesOf(ico).length < 1024);
});

Deno.test("a favicon the request blocks, or none, is never loaded", async () => {
  // A page that is never touched: each of these answers before the browser is asked.
  const page = new Proxy({}, {
    get() {
      throw new Error("the page was used");
    },
  }) as Page;
  const read = (url: string | null, options = {}) =>
    readFavicon(page, {
      url,
      options,
      route: { proxyUrl: "http://127.0.0.1:9" },
      timeoutMs: 1_000,
    });
  assert.deepEqual(await read(null), { data: null, reason: "none declared" });
  assert.deepEqual(await read("data:image/png;base64,AAAA"), {
    data: null,
    reason: "none declared",
  });
  const blocked = { data: null, reason: "blocked by the request" };
  assert.deepEqual(await read("https://a.test/i.png", { blockResources: ["image"] }), blocked);
  assert.deepEqual(await read("https://a.test/i.png", { blockRequests: ["*/i.png"] }), blocked);
});

function concat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((part) => [...part]));
}
