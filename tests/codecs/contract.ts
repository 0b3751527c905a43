/**
 * The output rules both codec paths must meet, registered once per path by wasm_test.ts and
 * sharp_test.ts.
 */
import assert from "node:assert/strict";
import type { ImageExporter } from "../../lib/codecs/exporter.ts";
import { ExportFailure } from "../../lib/codecs/errors.ts";
import { exportFailureError } from "../../lib/codecs/failures.ts";
import { readImageInfo, sniffKind } from "../../lib/codecs/image_info.ts";
import { orientPixels, type Pixels } from "../../lib/codecs/pixels.ts";
import { EXPORT_FORMATS, type ImageKind, QUALITY_PRESETS } from "../../lib/codecs/presets.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";
import {
  alphaPixels,
  encodeFixture,
  screenshotPixels,
  withOrientation,
} from "../../testing/codecs.ts";
import { pngChunks } from "../../testing/png.ts";
import { carriesMetadata, jpegTraits, pngRowFilters } from "./inspect.ts";

const KINDS: ImageKind[] = ["png", "jpeg", "webp"];

/** Registers the shared tests for one exporter; `skip` (a reason) marks them ignored. */
export function exporterContract(
  label: string,
  make: () => Promise<ImageExporter>,
  skip?: string,
) {
  const test = (name: string, fn: (exporter: ImageExporter) => Promise<void>) =>
    Deno.test({
      name: `${label}: ${name}${skip ? ` (skipped: ${skip})` : ""}`,
      ignore: skip !== undefined,
      async fn() {
        const exporter = await make();
        try {
          await fn(exporter);
        } finally {
          await exporter.close();
        }
      },
    });

  test("every input type becomes every format at every preset, upright and decodable", async (e) => {
    const mobile = screenshotPixels(375, 667);
    for (const kind of KINDS) {
      const input = await encodeFixture(mobile, kind);
      for (const format of EXPORT_FORMATS) {
        for (const preset of QUALITY_PRESETS) {
          const what = `${kind} -> ${format} ${preset}`;
          const result = await e.export(input.slice(), { format, preset });
          assert.equal(sniffKind(result.bytes), format, `${what}: magic bytes`);
          assert.equal(result.contentType, `image/${format}`, what);
          const info = readImageInfo(format, result.bytes);
          assert.deepEqual([info?.width, info?.height], [375, 667], `${what}: header size`);
          assert.deepEqual([result.width, result.height], [375, 667], what);
          const decoded = await decodeWasm(format, result.bytes);
          assert.deepEqual([decoded.width, decoded.height], [375, 667], `${what}: decodes`);
          if (format === "jpeg") {
            const traits = jpegTraits(result.bytes);
            assert.ok(traits.progressive, `${what}: progressive`);
            assert.ok(traits.optimisedTables, `${what}: optimised Huffman tables`);
          }
          if (format === "png") {
            // Opaque input: RGB, or a palette at `low`.
            const colourType = preset === "low" ? 3 : 2;
            assert.equal(pngChunks(result.bytes)[0].data[9], colourType, `${what}: colour type`);
          }
        }
      }
    }
  });

  test("a 1080p screenshot: JPEG and WebP shrink from high to low, PNG rows mix filters", async (e) => {
    const input = await encodeFixture(screenshotPixels(1920, 1080), "png");
    for (const format of ["jpeg", "webp"] as const) {
      const sizes = [];
      for (const preset of QUALITY_PRESETS) {
        sizes.push((await e.export(input.slice(), { format, preset })).bytes.length);
      }
      const [high, medium, low] = sizes;
      assert.ok(low < medium && medium < high, `${format} sizes high/medium/low: ${sizes}`);
    }
    const png = await e.export(input.slice(), { format: "png", preset: "medium" });
    const filters = new Set(pngRowFilters(png.bytes));
    assert.ok(filters.size > 1, `row filters used: ${[...filters]}`);
    assert.ok([...filters].every((f) => f >= 0 && f <= 4));
    const pixels = await decodeWasm("png", png.bytes);
    assert.deepEqual(pixels.data, (await decodeWasm("png", input)).data, "PNG is lossless");
  });

  test("PNG and WebP keep transparency; JPEG is flattened onto white", async (e) => {
    const source = alphaPixels();
    const at = (p: Pixels, x: number, y: number) =>
      Array.from(p.data.subarray((y * p.width + x) * 4, (y * p.width + x) * 4 + 4));
    const near = (actual: number[], expected: number[], tolerance: number, what: string) =>
      assert.ok(
        actual.every((v, i) => Math.abs(v - expected[i]) <= tolerance),
        `${what}: ${actual} vs ${expected}`,
      );
    for (const kind of ["png", "webp"] as const) {
      const input = await encodeFixture(source, kind, true);
      for (const format of ["png", "webp"] as const) {
        const out = await decodeWasm(
          format,
          (await e.export(input.slice(), { format, preset: "high" })).bytes,
        );
        assert.equal(at(out, 2, 2)[3], 0, `${kind} -> ${format}: transparent corner`);
        near([at(out, 106, 120)[3]], [128], 2, `${kind} -> ${format}: half-transparent disc`);
        assert.equal(at(out, 240, 80)[3], 255, `${kind} -> ${format}: opaque square`);
      }
      const jpeg = await e.export(input.slice(), { format: "jpeg", preset: "high" });
      const out = await decodeWasm("jpeg", jpeg.bytes);
      near(at(out, 2, 2), [255, 255, 255, 255], 3, `${kind} -> jpeg: corner is white, not green`);
      near(at(out, 106, 120), [238, 142, 142, 255], 10, `${kind} -> jpeg: disc over white`);
    }
  });

  test("EXIF orientation is applied and no metadata is copied", async (e) => {
    const mobile = screenshotPixels(375, 667);
    const lossless = await encodeFixture(mobile, "png");
    for (let orientation = 1; orientation <= 8; orientation++) {
      const input = withOrientation("png", lossless, orientation);
      const result = await e.export(input, { format: "png", preset: "medium" });
      const expected = orientPixels({ ...mobile, data: mobile.data.slice() }, orientation);
      const out = await decodeWasm("png", result.bytes);
      assert.deepEqual(
        [out.width, out.height],
        [expected.width, expected.height],
        `${orientation}`,
      );
      assert.ok(equalRgb(out.data, expected.data), `orientation ${orientation}: pixels upright`);
    }
    for (const kind of KINDS) {
      const input = withOrientation(kind, await encodeFixture(mobile, kind), 6);
      for (const format of EXPORT_FORMATS) {
        const result = await e.export(input.slice(), { format, preset: "medium" });
        assert.deepEqual([result.width, result.height], [667, 375], `${kind} -> ${format}`);
        const info = readImageInfo(format, result.bytes);
        assert.deepEqual([info?.width, info?.height, info?.orientation], [667, 375, 1]);
        assert.ok(!carriesMetadata(format, result.bytes), `${kind} -> ${format}: no metadata`);
      }
    }
  });

  test("an undecodable file is a 500 with a hint, and the exporter keeps working", async (e) => {
    const input = await encodeFixture(screenshotPixels(64, 48), "png");
    const broken = input.slice();
    const idat = pngChunks(broken).find((c) => c.type === "IDAT")!;
    idat.data.fill(0x5a); // a valid header over garbage image data
    for (const format of EXPORT_FORMATS) {
      const error = await e.export(broken.slice(), { format, preset: "high" }).catch((e) => e);
      assert.ok(error instanceof ExportFailure, `${format}: ${error}`);
      assert.equal(error.detail.kind, "undecodable");
      const answer = exportFailureError(error);
      assert.equal(answer.status, 500);
      assert.equal(answer.code, "internal_error");
      assert.doesNotMatch(answer.message + answer.hint, /decode failed|zlib|wasm|vips/i);
    }
    const result = await e.export(input.slice(), { format: "webp", preset: "low" });
    assert.equal(sniffKind(result.bytes), "webp");
  });
}

function equalRgb(rgba: Uint8Array, expected: Uint8Array): boolean {
  for (let i = 0; i < rgba.length; i++) if (i % 4 !== 3 && rgba[i] !== expected[i]) return false;
  return rgba.length === expected.length;
}
