/**
 * The one table from a capture's typed failure to the API's answer: each kind gets its status,
 * code and Retry-After, and the answer still says what happened (its cause, beforeWork).
 */
import assert from "node:assert/strict";
import { CaptureFailure, type CaptureFailureDetail } from "../../lib/capture/types.ts";
import { captureFailureError } from "../../lib/capture/failures.ts";
import { PageFailure } from "../../lib/capture/page/page_failure.ts";

const PAGE = { url: "https://example.com/", timeoutMs: 15_000 };

const TABLE: Array<[CaptureFailureDetail, number, string, string | undefined, boolean]> = [
  // detail, status, code, Retry-After, beforeWork
  [
    { kind: "backend_unavailable", reason: "no_browser", retryAfterS: 10 },
    503,
    "upstream_unavailable",
    "10",
    true,
  ],
  [
    { kind: "backend_unavailable", reason: "no_remote", retryAfterS: 4 },
    503,
    "upstream_unavailable",
    "4",
    true,
  ],
  [
    { kind: "backend_unavailable", reason: "remote_lost", retryAfterS: 1 },
    503,
    "upstream_unavailable",
    "1",
    false,
  ],
  [
    { kind: "backend_unavailable", reason: "browser_restarted", retryAfterS: 1 },
    503,
    "upstream_unavailable",
    "1",
    false,
  ],
  [
    { kind: "no_backend", retryAfterS: 7, beforeWork: true },
    503,
    "upstream_unavailable",
    "7",
    true,
  ],
  [
    { kind: "no_backend", retryAfterS: 1, beforeWork: false },
    503,
    "upstream_unavailable",
    "1",
    false,
  ],
  [{ kind: "queue_full", retryAfterS: 3 }, 503, "upstream_unavailable", "3", true],
  [{ kind: "deadline", ms: 30_000 }, 408, "upstream_timeout", undefined, false],
  [
    {
      kind: "page_failed",
      cause: new Error("net::ERR_CONNECTION_REFUSED"),
      ...PAGE,
      timedOut: false,
    },
    500,
    "upstream_failed",
    undefined,
    false,
  ],
  [
    { kind: "page_failed", cause: new PageFailure({ kind: "no_paint" }), ...PAGE, timedOut: true },
    408,
    "upstream_timeout",
    undefined,
    false,
  ],
  [
    {
      kind: "page_failed",
      cause: new PageFailure({ kind: "no_element", selector: "#x" }),
      ...PAGE,
      timedOut: false,
    },
    400,
    "invalid_request",
    undefined,
    false,
  ],
];

Deno.test("each capture failure kind is answered with its status, code and Retry-After", () => {
  for (const [detail, status, code, retryAfter, beforeWork] of TABLE) {
    const failure = new CaptureFailure(detail);
    const answer = captureFailureError(failure);
    const label = JSON.stringify(detail);
    assert.equal(answer.status, status, label);
    assert.equal(answer.code, code, label);
    assert.equal(answer.headers["Retry-After"], retryAfter, label);
    assert.equal(failure.beforeWork, beforeWork, label);
    assert.equal(answer.cause, failure, `${label}: the answer carries what happened`);
  }
});

Deno.test("the answers keep their words: queue, backends, deadline", () => {
  const queue = captureFailureError(new CaptureFailure({ kind: "queue_full", retryAfterS: 3 }));
  assert.equal(queue.message, "Too many captures are in progress.");
  assert.match(queue.hint, /Wait 3 seconds/);
  const none = captureFailureError(
    new CaptureFailure({ kind: "no_backend", retryAfterS: 1, beforeWork: false }),
  );
  assert.equal(none.message, "No browser is available to render the page.");
  assert.match(none.hint, /\/healthz/);
  const browser = captureFailureError(
    new CaptureFailure({ kind: "backend_unavailable", reason: "no_browser", retryAfterS: 10 }),
  );
  assert.match(browser.hint, /apt-get install chromium/);
  const deadline = captureFailureError(new CaptureFailure({ kind: "deadline", ms: 30_000 }));
  assert.equal(deadline.message, "The capture did not finish within 30000 ms.");
});
