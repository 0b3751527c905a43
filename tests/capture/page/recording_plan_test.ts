/**
 * The recording's frame plan: one position per frame, the top first and the bottom last, held at
 * both ends, moving steadily (never backwards, no jump past an eased step) in between; screens
 * stop at each screen.
 */
import assert from "node:assert/strict";
import {
  END_HOLD_SHARE,
  planScroll,
  TOP_HOLD_SHARE,
} from "../../../lib/capture/page/recording_plan.ts";
import { recordingFrames, resolvedRecording } from "../../../lib/capture/request/output.ts";

const SMOOTH = resolvedRecording("mp4", {});
const PAGE = { distance: 10_000 - 720, screen: 720 };

/** How many frames at the start and at the end sit at the same position as their neighbour. */
function holds(plan: number[]): { top: number; end: number } {
  let top = 0;
  while (plan[top] === plan[0]) top++;
  let end = 0;
  while (plan[plan.length - 1 - end] === plan[plan.length - 1]) end++;
  return { top, end };
}

Deno.test("a smooth plan has a position per frame, from the top to the bottom", () => {
  const plan = planScroll(SMOOTH, PAGE);
  assert.equal(plan.length, recordingFrames(SMOOTH));
  assert.equal(plan.length, 180);
  assert.equal(plan[0], 0);
  assert.equal(plan[plan.length - 1], PAGE.distance);
  assert.ok(plan.every(Number.isInteger), "whole pixels");
});

Deno.test("a smooth plan holds at the top and longer at the bottom", () => {
  const plan = planScroll(SMOOTH, PAGE);
  const { top, end } = holds(plan);
  assert.equal(top, Math.round(180 * TOP_HOLD_SHARE));
  // The last eased step lands on the bottom too, so it counts in the end's run.
  assert.equal(end, Math.round(180 * END_HOLD_SHARE) + 1);
});

Deno.test("a smooth plan never goes back and eases in and out", () => {
  const plan = planScroll(SMOOTH, PAGE);
  const steps = plan.slice(1).map((y, i) => y - plan[i]);
  assert.ok(steps.every((step) => step >= 0), "never backwards");
  const moving = steps.filter((step) => step > 0);
  const mean = PAGE.distance / moving.length;
  const fastest = Math.max(...moving);
  // Sine easing: the fastest step is pi/2 times the mean, the first and last far slower.
  assert.ok(fastest <= mean * Math.PI / 2 + 2, `fastest ${fastest}, mean ${mean}`);
  assert.ok(moving[0] < mean / 4 && moving[moving.length - 1] < mean / 4, "gentle ends");
  // Every frame between the holds is at a new position: no stall in the scroll.
  const { top, end } = holds(plan);
  assert.equal(moving.length, plan.length - top - end + 1);
});

Deno.test("a page that does not scroll is held at the top for every frame", () => {
  const plan = planScroll(resolvedRecording("gif", { durationMs: 2000 }), {
    distance: 0,
    screen: 720,
  });
  assert.equal(plan.length, 24);
  assert.ok(plan.every((y) => y === 0));
});

Deno.test("the shortest recording still starts at the top and ends at the bottom", () => {
  const plan = planScroll({ durationMs: 1000, fps: 10, scroll: "smooth" }, PAGE);
  assert.equal(plan.length, 10);
  assert.equal(plan[0], 0);
  assert.equal(plan[9], PAGE.distance);
});

Deno.test("a screens plan stops and holds at each screen, then at the bottom", () => {
  const recording = resolvedRecording("mp4", { scroll: "screens", durationMs: 12_000 });
  const page = { distance: 3 * 720 + 300, screen: 720 };
  const plan = planScroll(recording, page);
  assert.equal(plan.length, 360);
  assert.equal(plan[0], 0);
  assert.equal(plan[plan.length - 1], page.distance);
  // Runs of the same position: the top, each screen, the bottom.
  const stops = plan.filter((y, i) => i > 0 && plan[i - 1] === y && plan[i + 1] === y);
  assert.deepEqual([...new Set(stops)], [0, 720, 1440, 2160, page.distance]);
  // A move takes at most half a second (15 frames at 30 fps).
  const moving = plan.slice(1).map((y, i) => y !== plan[i]).filter(Boolean).length;
  assert.ok(moving <= 4 * 15, `${moving} moving frames`);
});
