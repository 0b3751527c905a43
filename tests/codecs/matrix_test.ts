/**
 * Every input kind x output format x preset, on both codec paths (sharp and wasm), side by side:
 * type, dimensions, decodability, no metadata but the kept ICC profile, the PNG size rules, and
 * how close the two paths' pixels and sizes are.
 */
import assert from "node:assert/strict";
import {
  createSharpExporter,
  createWasmExporter,
  type ExportResult,
  type ImageExporter,
} from "../../lib/codecs/exporter.ts";
import { swapsAxes } from "../../lib/codecs/exif.ts";
import { readIcc } from "../../lib/codecs/icc.ts";
import { readImageInfo, sniffKind } from "../../lib/codecs/image_info.ts";
import { EXPORT_FORMATS, QUALITY_PRESETS } from "../../lib/codecs/presets.ts";
import { loadSharp } from "../../lib/codecs/sharp.ts";
import { decodeWasm } from "../../lib/codecs/wasm.ts";
import { inputKinds } from "./input_kinds.ts";
import { meanAbsoluteError } from "./inspect.ts";
import { metadataLeft } from "./private_metadata.ts";

const loaded = await loadSharp();
const skip = "reason" in loaded ? `sharp cannot load here: ${loaded.reason}` : undefined;

Deno.test({
  name: `every input kind x format x preset exports alike on the sharp and wasm paths${
    skip ? ` (skipped: ${skip})` : ""
  }`,
  ignore: skip !== undefined,
  async fn() {
    if (!("sharp" in loaded)) return;
    const created = await createSharpExporter();
    if (!("exporter" in created)) throw new Error(created.reason);
    const paths: [string, ImageExporter][] = [["sharp", created.exporter], [
      "wasm",
      createWasmExporter(),
    ]];
    try {
      for (const input of await inputKinds(loaded.sharp)) {
        const info = readImageInfo(sniffKind(input.bytes)!, input.bytes)!;
        const upright = swapsAxes(info.orientation)
          ? [info.height, info.width]
          : [info.width, info.height];
        for (const format of EXPORT_FORMATS) {
          const sizes: Record<string, Record<string, number>> = { sharp: {}, wasm: {} };
          for (const preset of QUALITY_PRESETS) {
            const what = `${input.name} -> ${format} ${preset}`;
            const out: Record<string, ExportResult> = {};
            for (const [path, exporter] of paths) {
              const result = await exporter.export(input.bytes.slice(), { format, preset });
              const where = `${path}: ${what}`;
              assert.equal(sniffKind(result.bytes), format, `${where}: type`);
              const header = readImageInfo(format, result.bytes);
              assert.deepEqual([header?.width, header?.height, header?.orientation], [
                ...upright,
                1,
              ], where);
              assert.deepEqual(metadataLeft(format, result.bytes), [], `${where}: metadata`);
              assert.deepEqual(readIcc(format, result.bytes), input.icc, `${where}: ICC profile`);
              out[path] = result;
              sizes[path][preset] = result.bytes.length;
            }
            const [a, b] = await Promise.all(
              [out.sharp, out.wasm].map((r) => decodeWasm(format, r.bytes)),
            );
            assert.deepEqual([a.width, a.height], upright, `${what}: decodes`);
            if (format === "png" && preset === "medium" && input.pixels) {
              // Lossless out of a lossless upload: exactly what it stores, never converted
              // (a P3 file keeps its P3 values); from JPEG or WebP, close to their source.
              const exact = input.name.startsWith("png");
              for (const [path, decoded] of [["sharp", a], ["wasm", b]] as const) {
                const error = Math.max(...meanAbsoluteError(decoded, input.pixels));
                assert.ok(error <= (exact ? 0 : 3), `${path}: ${what}: MAE ${error} from source`);
              }
            }
            const mae = Math.max(...meanAbsoluteError(a, b));
            const ratio = out.wasm.bytes.length / out.sharp.bytes.length;
            // Same decoders and encoders but for CMYK (libjpeg-turbo vs libjpeg), alpha flattening
            // (rounding) and the two builds of libimagequant (4.x in wasm, 2.4 in libvips),
            // which choose different palettes. Palette sizes on images this small, and JPEG/WebP
            // sizes of a few KB, are compared on 1080p images instead (presets_test, sharp_test).
            const palette = preset === "low" && format === "png";
            const limit = palette ? 3 : /cmyk|ycck/.test(input.name) ? 1.5 : 1;
            assert.ok(mae <= limit, `${what}: paths differ by MAE ${mae.toFixed(2)}`);
            if (format === "png" && !palette) {
              assert.ok(Math.abs(ratio - 1) <= 0.1, `${what}: PNG sizes wasm/sharp ${ratio}`);
            }
          }
          if (format === "png") {
            for (const path of ["sharp", "wasm"]) {
              const { high, medium, low } = sizes[path];
              assert.ok(
                high <= medium,
                `${path}: ${input.name} PNG high ${high} > medium ${medium}`,
              );
              assert.ok(low < medium, `${path}: ${input.name} PNG low ${low} >= medium ${medium}`);
            }
          }
        }
      }
    } finally {
      await Promise.all(paths.map(([, exporter]) => exporter.close()));
    }
  },
});
