/**
 * The retry schedule of webhook deliveries (lib/webhooks/schedule.ts): the table docs/jobs.md
 * states, the jitter's bounds, and giving up after the seventh attempt.
 */
import assert from "node:assert/strict";
import { MAX_ATTEMPTS, retryDelayMs } from "../../lib/webhooks/schedule.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

Deno.test("the schedule is the table of docs/jobs.md, without jitter", () => {
  const none = { random: () => 0 };
  assert.equal(MAX_ATTEMPTS, 7);
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelayMs(attempt, none)),
    [0, 5 * SECOND, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR],
  );
});

Deno.test("first retries come within seconds, the third attempt within two minutes, the last hours later", () => {
  const most = { random: () => 0.999999 };
  const elapsedBefore = (attempt: number) => {
    let total = 0;
    for (let n = 2; n <= attempt; n++) total += retryDelayMs(n, most)!;
    return total;
  };
  assert.ok(elapsedBefore(2) < 10 * SECOND);
  assert.ok(elapsedBefore(3) < 2 * MINUTE);
  assert.ok(elapsedBefore(7) > HOUR);
});

Deno.test("jitter adds at most a tenth, never takes away", () => {
  for (const draw of [0, 0.25, 0.5, 0.999999, 1, -3, 7]) {
    const delay = retryDelayMs(4, { random: () => draw })!;
    assert.ok(delay >= 5 * MINUTE && delay <= 5.5 * MINUTE, `${draw}: ${delay}`);
  }
  assert.equal(retryDelayMs(2, { random: () => 0.5 }), 5_250);
});

Deno.test("past the seventh attempt, and for nonsense attempts, the delivery is given up", () => {
  for (const attempt of [8, 100, 0, -1, 2.5, NaN]) assert.equal(retryDelayMs(attempt), null);
});
