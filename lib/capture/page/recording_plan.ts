/**
 * Where the page is scrolled for each frame of a recording: a pure function of the recording's
 * options and the page's measures, so every frame's time is i/fps by construction. Smooth: a
 * short hold at the top, one eased scroll to the bottom, a longer hold there. Screens: a screen
 * at a time, each a quick eased move and a hold, the same holds at both ends.
 */
import { recordingFrames, type RecordingOptions } from "../request/output.ts";

/** The share of the frames held at the top before the page moves (a viewer sees where it starts). */
export const TOP_HOLD_SHARE = 0.08;
/** The share held at the bottom at the end (long enough to read the last screen). */
export const END_HOLD_SHARE = 0.18;
/** A move from one screen to the next takes at most this long. */
const SCREEN_MOVE_S = 0.5;

/** The page as the plan sees it, in CSS px. */
export interface ScrollRange {
  /** How far the document scrolls: its height less the viewport's, at least 0. */
  distance: number;
  /** The viewport's height (one screen). */
  screen: number;
}

/** The scroll position of every frame in CSS px, whole pixels, first 0 and last `distance`. */
export function planScroll(recording: Required<RecordingOptions>, range: ScrollRange): number[] {
  const frames = recordingFrames(recording);
  const distance = Math.max(0, Math.round(range.distance));
  if (distance === 0) return new Array(frames).fill(0);
  const top = Math.max(1, Math.round(frames * TOP_HOLD_SHARE));
  const end = Math.max(1, Math.round(frames * END_HOLD_SHARE));
  const moving = Math.max(0, frames - top - end);
  const path = recording.scroll === "screens"
    ? screensPath(moving, { distance, screen: range.screen, fps: recording.fps })
    : movePath(moving, 0, distance);
  return [
    ...new Array(top).fill(0),
    ...path,
    ...new Array(frames - top - path.length).fill(distance),
  ];
}

/** `count` positions easing from `from` to `to`, the last one at `to`. */
function movePath(count: number, from: number, to: number): number[] {
  return Array.from(
    { length: count },
    (_, k) => Math.round(from + (to - from) * ease((k + 1) / count)),
  );
}

/** Stops a screen apart down to `distance`; each move eased, then held until the next. */
function screensPath(
  count: number,
  page: { distance: number; screen: number; fps: number },
): number[] {
  const step = Math.max(1, page.screen);
  const stops = [0];
  while (stops[stops.length - 1] < page.distance) {
    stops.push(Math.min(page.distance, stops[stops.length - 1] + step));
  }
  const moves = stops.length - 1;
  const path: number[] = [];
  for (let j = 0; j < moves; j++) {
    // The frames are shared out evenly; the first moves take the remainder.
    const share = Math.floor(count / moves) + (j < count % moves ? 1 : 0);
    if (share === 0) continue;
    const move = Math.max(1, Math.min(Math.round(page.fps * SCREEN_MOVE_S), Math.ceil(share / 2)));
    path.push(...movePath(move, stops[j], stops[j + 1]));
    path.push(...new Array(share - move).fill(stops[j + 1]));
  }
  // Fewer frames than moves: the last frame still reaches the bottom (the end hold).
  return path;
}

/** Sine ease-in-out: starts and stops gently, at most pi/2 times the mean speed. */
function ease(t: number): number {
  return (1 - Math.cos(Math.PI * t)) / 2;
}
