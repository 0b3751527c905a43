/**
 * The editor's frame is the API's: for ten designs covering every field, the editor's export
 * after a capture equals POST /api/screenshot's answer for the request "Copy as API request"
 * gives, pixel for pixel (the same renderer runs on both sides). An own image framed in the
 * editor equals POST /api/frame's answer for the copied `frame`.
 */
import assert from "node:assert/strict";
import { type FrameFields, minimalFields } from "../../lib/frame/design.js";
import { launchChromium } from "../../testing/editor_browser.ts";
import { startEditorInstance } from "../../testing/editor_instance.ts";
import {
  captureParity,
  OWN_IMAGE_DESIGN,
  ownImageParity,
  PARITY_DESIGNS,
  type ParityResult,
} from "../../testing/frame_parity.ts";

// Both sides run render.js on the same pixels (the page declares a PNG icon, which both decode
// exactly), and both files are lossless PNGs written from the renderer's own pixels (the editor
// writes its file itself, not through the canvas): the pictures are identical, transparent
// backgrounds included.
const MAX_DIFFERENCE = 0;

function assertSame(result: ParityResult, frame: FrameFields) {
  assert.deepEqual([result.width, result.height], [result.api.width, result.api.height]);
  assert.deepEqual(result.sentFrame, frame, "the copied request carries the design");
  assert.equal(result.difference.max, MAX_DIFFERENCE, `mean ${result.difference.meanAbs}`);
  assert.deepEqual(result.problems, [], "no console error and no failed request");
}

Deno.test("the editor's frame equals the API's for the same design", async (t) => {
  // Twenty requests a minute would stop the editor's captures and the API's answers midway.
  const instance = await startEditorInstance({ RATE_LIMIT_PER_MINUTE: "1000" });
  const browser = await launchChromium();
  const dir = await Deno.makeTempDir({ prefix: "shotline-parity-" });
  try {
    for (const design of PARITY_DESIGNS) {
      await t.step(`capture: ${design.name}`, async () => {
        const result = await captureParity(browser, {
          origin: instance.origin,
          pageUrl: instance.rasterIconPageUrl,
          design,
          dir,
        });
        assertSame(result, minimalFields(design.frame));
      });
    }
    await t.step(OWN_IMAGE_DESIGN.name, async () => {
      const png = await Deno.readFile(
        new URL("../../testing/screenshot_1080p.png", import.meta.url),
      );
      const result = await ownImageParity(browser, { origin: instance.origin, png, dir });
      assertSame(result, minimalFields(OWN_IMAGE_DESIGN.frame));
    });
  } finally {
    await browser.close();
    await instance.close();
    await Deno.remove(dir, { recursive: true });
  }
});
