// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// The status line, the progress state (elapsed seconds, Cancel) and the error box.
import { byId } from "./shared.js";

const els = {
  stage: byId("stage", HTMLElement),
  status: byId("status", HTMLElement),
  progress: byId("progress", HTMLProgressElement),
  cancel: byId("cancel", HTMLButtonElement),
  error: byId("error", HTMLElement),
  errorTitle: byId("error-title", HTMLElement),
  errorHint: byId("error-hint", HTMLElement),
  errorWait: byId("error-wait", HTMLElement),
};

/**
 * The error envelope of an API answer (only the fields the page shows).
 * @typedef {{ error?: string, hint?: string, retryAfter?: number }} Envelope
 */

/** A failure to show: an API answer's envelope, or a message of the page's own. */
export class ApiFailure extends Error {
  /**
   * @param {Envelope} body
   * @param {number} status the HTTP status, 0 when the page itself refused
   */
  constructor(body, status) {
    super(body.error || `HTTP ${status}`);
    this.hint = body.hint || "";
    this.status = status;
    this.retryAfter = body.retryAfter;
  }
}

let busy = false;
/** @type {AbortController | null} */
let running = null;
/** @type {ReturnType<typeof setInterval> | 0} */
let retryTimer = 0;
let retryUntil = 0;

/** @type {Array<{ control: HTMLButtonElement | HTMLInputElement, usable: () => boolean }>} */
const lockable = [];

/**
 * Disables `control` while work runs, and whenever `usable()` says it cannot be used.
 * @param {HTMLButtonElement | HTMLInputElement} control
 * @param {() => boolean} [usable]
 */
export function lockWhileBusy(control, usable = () => true) {
  lockable.push({ control, usable });
  control.disabled = busy || !usable();
}

/** Re-evaluates which controls can be used now (after the source or the rate limit changed). */
export function refreshControls() {
  for (const { control, usable } of lockable) control.disabled = busy || !usable();
}

/** True while a capture, post, image or export is being worked on. */
export const isBusy = () => busy;

/** False while the rate limit's Retry-After has not passed. */
export const captureAllowed = () => retryUntil <= Date.now();

/** @param {string} text */
export function setStatus(text) {
  els.status.textContent = text;
}

/** @param {ApiFailure} failure */
export function showError(failure) {
  els.errorTitle.textContent = failure.message;
  els.errorHint.textContent = failure.hint || "";
  els.error.hidden = false;
  if (failure.status === 429) startRetryCountdown(Number(failure.retryAfter) || 1);
}

export function clearError() {
  els.error.hidden = true;
  if (!retryTimer) els.errorWait.hidden = true;
}

/**
 * Disables capturing until the rate limit's window allows it again, counting down.
 * @param {number} seconds
 */
function startRetryCountdown(seconds) {
  retryUntil = Date.now() + seconds * 1000;
  clearInterval(retryTimer);
  const tick = () => {
    const left = Math.ceil((retryUntil - Date.now()) / 1000);
    els.errorWait.hidden = false;
    if (left > 0) {
      els.errorWait.textContent = `You can capture again in ${left} s.`;
    } else {
      clearInterval(retryTimer);
      retryTimer = 0;
      els.errorWait.textContent = "You can capture again now.";
    }
    refreshControls();
  };
  retryTimer = setInterval(tick, 250);
  tick();
}

/**
 * Settles like `work`, or rejects as soon as `signal` aborts (work that cannot be aborted
 * itself, like decoding, is then ignored).
 * @template T
 * @param {Promise<T>} work
 * @param {AbortSignal} signal
 * @returns {Promise<T>}
 */
function untilAborted(work, signal) {
  return Promise.race([
    work,
    new Promise((_, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    }),
  ]);
}

/**
 * Runs `task` with the progress state up (elapsed seconds, Cancel) and the controls locked;
 * shows failures. Ignored while other work runs.
 * @param {string} label
 * @param {(signal: AbortSignal) => Promise<string>} task resolves with the status to show
 */
export async function withProgress(label, task) {
  if (busy) return;
  busy = true;
  clearError();
  const controller = new AbortController();
  running = controller;
  const started = Date.now();
  const show = () => setStatus(`${label}… ${Math.floor((Date.now() - started) / 1000)} s`);
  show();
  const timer = setInterval(show, 1000);
  els.progress.hidden = false;
  els.cancel.hidden = false;
  els.stage.setAttribute("aria-busy", "true");
  refreshControls();
  try {
    setStatus(await untilAborted(task(controller.signal), controller.signal));
  } catch (error) {
    if (controller.signal.aborted) {
      setStatus(`Cancelled after ${Math.floor((Date.now() - started) / 1000)} s.`);
    } else {
      showError(error instanceof ApiFailure ? error : unexpected(error));
      setStatus("Failed.");
    }
  } finally {
    clearInterval(timer);
    busy = false;
    running = null;
    // Focus would be lost with the hidden button: the status line says what happened.
    const cancelHadFocus = document.activeElement === els.cancel;
    els.cancel.hidden = true;
    els.progress.hidden = true;
    els.stage.setAttribute("aria-busy", "false");
    refreshControls();
    if (cancelHadFocus) els.status.focus();
  }
}

els.cancel.addEventListener("click", () => running?.abort());

/**
 * A failure that is not an API answer: the network, or an image that would not decode.
 * @param {unknown} error
 */
function unexpected(error) {
  if (error instanceof TypeError) {
    return new ApiFailure({
      error: "The service could not be reached.",
      hint: "Check your connection and try again.",
    }, 0);
  }
  return new ApiFailure({
    error: `Something went wrong: ${error instanceof Error ? error.message : error}`,
    hint: "Try again; if it keeps failing, try another page, post or image.",
  }, 0);
}

/**
 * The envelope's error and hint from its Markdown form, which the service answers to a request
 * that prefers text/markdown (as a download of the page's Markdown does).
 * @param {string} text
 * @returns {Envelope}
 */
function markdownEnvelope(text) {
  const match = /^# \d+ \S+\n\n([\s\S]+?)\n\n\*\*How to fix it:\*\* ([\s\S]*?)\n(\n|$)/.exec(text);
  if (!match) throw new SyntaxError("not an error envelope");
  return { error: match[1], hint: match[2] };
}

/**
 * fetch() that turns any non-2xx answer into an ApiFailure carrying the envelope (JSON, or
 * Markdown when the request preferred it).
 * @param {string} url
 * @param {RequestInit} [init]
 */
export async function request(url, init) {
  const res = await fetch(url, init);
  if (res.ok) return res;
  /** @type {Envelope} */
  let body = {};
  try {
    const markdown = /^text\/markdown\b/.test(res.headers.get("Content-Type") ?? "");
    body = markdown ? markdownEnvelope(await res.text()) : await res.json();
  } catch {
    body = { error: `The service answered HTTP ${res.status}.` };
  }
  if (res.status === 429 && body.retryAfter === undefined) {
    body.retryAfter = Number(res.headers.get("Retry-After")) || 1;
  }
  throw new ApiFailure(body, res.status);
}
