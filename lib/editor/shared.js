// @ts-check
/// <reference no-default-lib="true" />
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="esnext" />
// Small helpers shared by the editor's modules.

/**
 * The element with `id`, checked to be of the expected kind (the page renders them all).
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} kind
 * @returns {T}
 */
export function byId(id, kind) {
  const element = document.getElementById(id);
  if (!(element instanceof kind)) throw new Error(`#${id} is missing from the page`);
  return element;
}

/**
 * A URL as typed, with https:// added when no scheme was given.
 * @param {string} text
 */
export function normaliseUrl(text) {
  const trimmed = text.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`;
}

/**
 * A byte count the way people read it (B, KB, MB).
 * @param {number} bytes
 */
export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

/**
 * A 2D context, or a failure the page can show (a browser without canvas support).
 * @param {HTMLCanvasElement} canvas
 * @param {CanvasRenderingContext2DSettings} [settings]
 */
export function context2d(canvas, settings) {
  const ctx = canvas.getContext("2d", settings);
  if (!ctx) throw new Error("This browser cannot draw on a canvas.");
  return ctx;
}
