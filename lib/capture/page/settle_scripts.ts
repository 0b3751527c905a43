/**
 * The in-page halves of the settle (settle.ts), kept as text: the service is not type-checked
 * against the DOM. None of them waits on a page timer, because once Chromium's virtual time
 * budget is spent the page's timers stand still until the next budget.
 */
import { WATCH_VIEWPORT_LISTENERS } from "./full_page.ts";

/**
 * Runs in every document before its scripts. Notes what could still change the page (pending
 * timers, intervals, animation-frame callbacks, observers, scroll listeners), so a static page
 * skips the settle, and routes requestAnimationFrame through a queue that `pump()` can drain:
 * under virtual time Chromium fires timers at once but paints frames at wall-clock pace, so
 * frame-driven animation (GSAP-like tickers) would otherwise see a handful of frames at most.
 * Each callback still runs once, by whichever comes first: the real frame or the pump. The
 * natives are always called on `window`: a page may call them as methods of another object.
 */
export const SETTLE_INIT_SCRIPT = `(() => {
  if (window.__shotlineSettle) return;
  const hints = { observers: 0, scrollListeners: 0, intervals: 0 };
  const timers = new Set();
  const frames = new Map();
  const native = {
    setTimeout: window.setTimeout, clearTimeout: window.clearTimeout,
    setInterval: window.setInterval, clearInterval: window.clearInterval,
    raf: window.requestAnimationFrame, caf: window.cancelAnimationFrame,
  };
  window.setTimeout = function (handler, ...rest) {
    if (typeof handler !== "function") return native.setTimeout.call(window, handler, ...rest);
    const id = native.setTimeout.call(window, function (...args) {
      timers.delete(id);
      return handler.apply(this, args);
    }, ...rest);
    timers.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    timers.delete(id);
    return native.clearTimeout.call(window, id);
  };
  window.setInterval = function (...args) {
    hints.intervals++;
    return native.setInterval.apply(window, args);
  };
  window.requestAnimationFrame = function (callback) {
    const entry = { callback, native: 0 };
    entry.native = native.raf.call(window, (time) => {
      if (frames.get(entry.native) !== entry) return;
      frames.delete(entry.native);
      callback(time);
    });
    frames.set(entry.native, entry);
    return entry.native;
  };
  window.cancelAnimationFrame = function (id) {
    frames.delete(id);
    return native.caf.call(window, id);
  };
  ${WATCH_VIEWPORT_LISTENERS}
  let pumping = 0;
  // Drains queued frame callbacks every 16 ms of page time until stop() or the budget pauses.
  const pump = () => {
    const run = ++pumping;
    const step = () => {
      if (run !== pumping) return;
      const due = [...frames.values()];
      frames.clear();
      const now = performance.now();
      for (const entry of due) {
        native.caf.call(window, entry.native);
        try { entry.callback(now); } catch (error) { reportError(error); }
      }
      native.setTimeout.call(window, step, 16);
    };
    native.setTimeout.call(window, step, 16);
  };
  const state = {
    hints,
    pump,
    stop() { pumping++; },
    /** Whether page time could still change what is painted. */
    active() {
      return timers.size > 0 || hints.intervals > 0 || frames.size > 0;
    },
  };
  Object.defineProperty(window, "__shotlineSettle", { value: state });
})();`;

/** What the settle needs to know about the page now. */
export const PROBE_SCRIPT = `() => {
  const state = window.__shotlineSettle;
  const animations = document.getAnimations().length;
  if (!state) return { installed: false, active: true, animations, observes: true };
  const h = state.hints;
  const lazy = document.querySelector("img[loading=lazy], iframe[loading=lazy]") !== null;
  return {
    installed: true,
    active: state.active(),
    animations,
    observes: h.observers > 0 || h.scrollListeners > 0 || lazy ||
      onscroll !== null || document.onscroll !== null,
  };
}`;

/** Starts draining frame callbacks in page time (a no-op without the init script). */
export const PUMP_SCRIPT = `() => window.__shotlineSettle?.pump()`;
export const STOP_PUMP_SCRIPT = `() => window.__shotlineSettle?.stop()`;

/**
 * Brings every finite animation and transition (CSS or Web Animations) to its end and cancels
 * infinite ones, which then show their un-animated style: a stable frame. Animations on a
 * scroll or view timeline follow the scroll position, not time, and are left alone.
 */
export const FINISH_ANIMATIONS_SCRIPT = `() => {
  let finished = 0;
  let cancelled = 0;
  for (const animation of document.getAnimations()) {
    try {
      if (animation.timeline && animation.timeline !== document.timeline) continue;
      if (animation.playState === "finished") continue;
      const timing = animation.effect?.getComputedTiming();
      if (!timing) continue;
      if (timing.endTime === Infinity || timing.iterations === Infinity) {
        animation.cancel();
        cancelled++;
      } else {
        animation.finish();
        finished++;
      }
    } catch {}
  }
  return { finished, cancelled };
}`;

/**
 * Makes the lazy images inside the shot (the top `height` CSS px) load now, and resolves once
 * they and the web fonts are decoded; the caller bounds it in wall-clock time.
 */
export const ASSETS_SCRIPT = `async (height) => {
  const inShot = [...document.images].filter((img) => {
    const r = img.getBoundingClientRect();
    return r.bottom > 0 && r.top < height && r.width > 0;
  });
  for (const img of inShot) if (img.loading === "lazy") img.loading = "eager";
  const pending = inShot.filter((img) => !img.complete || img.naturalWidth > 0)
    .map((img) => img.decode().catch(() => {}));
  await Promise.all([...pending, document.fonts.ready]);
}`;

/** Fires the events scroll-driven libraries wait for before they look at the viewport again. */
export const NUDGE_EVENTS_SCRIPT = `() => {
  dispatchEvent(new Event("scroll"));
  document.dispatchEvent(new Event("scroll"));
}`;

/** Two real frames: IntersectionObserver callbacks are computed in the rendering step. */
export const TWO_FRAMES_SCRIPT = `() => new Promise((resolve) =>
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))`;

/**
 * Whether the page has something a person would see once it finished fading in: text or a
 * picture in the document. A flat screenshot of such a page is a frame caught too early.
 */
export const HAS_CONTENT_SCRIPT = `() => {
  const body = document.body;
  if (!body) return false;
  if (body.innerText.trim().length > 0) return true;
  return body.querySelector("img, svg, canvas, video, picture") !== null;
}`;
