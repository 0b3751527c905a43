import assert from "node:assert/strict";
import { createSharpExporter } from "../../lib/codecs/exporter.ts";
import { planExport } from "../../lib/codecs/plan.ts";
import { EXPORT_FORMATS } from "../../lib/codecs/presets.ts";
import { exportWithSharp, loadSharp } from "../../lib/codecs/sharp.ts";
import { decodeWasm, exportWithWasm } from "../../lib/codecs/wasm.ts";
import { exporterContract } from "./contract.ts";
import { encodeFixture, screenshotPixels } from "../../testing/codecs.ts";

// sharp needs FFI (the test task allows it); without it these tests are reported as ignored.
const loaded = await loadSharp();
const skip = "reason" in loaded ? `sharp cannot load here: ${loaded.reason}` : undefined;

exporterContract("sharp exporter", async () => {
  const created = await createSharpExporter();
  if (!("exporter" in created)) throw new Error(created.reason);
  return created.exporter;
}, skip);

Deno.test({
  name: `sharp and wasm paths give the same pixels (PNG) and sizes within 1%${
    skip ? ` (skipped: ${skip})` : ""
  }`,
  ignore: skip !== undefined,
  async fn() {
    if (!("sharp" in loaded)) return;
    const input = await encodeFixture(screenshotPixels(640, 400), "png");
    for (const format of EXPORT_FORMATS) {
      const plan = planExport(input, { format, preset: "medium" });
      const wasm = await exportWithWasm(input.slice(), plan);
      const sharp = await exportWithSharp(loaded.sharp, { input, plan });
      const ratio = wasm.length / sharp.length;
      assert.ok(
        Math.abs(ratio - 1) < 0.01,
        `${format}: wasm ${wasm.length} vs sharp ${sharp.length}`,
      );
      if (format === "png") {
        assert.deepEqual(
          (await decodeWasm("png", wasm)).data,
          (await decodeWasm("png", sharp)).data,
        );
      }
    }
  },
});
