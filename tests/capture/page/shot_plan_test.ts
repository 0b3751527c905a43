/** Who encodes a capture's image: the shot plan says, from the format asked for and the format shot. */
import assert from "node:assert/strict";
import { encoderOf, JOINED_FORMAT, planShot } from "../../../lib/capture/page/shot_plan.ts";

Deno.test("Chromium encodes one screenshot in the format asked for; PNG is never encoded twice", () => {
  for (const format of ["png", "jpeg", "webp"] as const) {
    assert.equal(encoderOf(planShot({ format }), format), "chromium", format);
  }
  assert.equal(encoderOf(planShot({ fullPage: true }), JOINED_FORMAT), "chromium");
});

Deno.test("the service encodes a jpeg or webp joined from several shots", () => {
  for (const format of ["jpeg", "webp"] as const) {
    const plan = planShot({ fullPage: true, format, quality: 80 });
    assert.equal(encoderOf(plan, JOINED_FORMAT), "service", format);
    assert.equal(plan.format, format);
  }
});
