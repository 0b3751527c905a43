/**
 * The in-page halves of the settle (settle.ts), kept as text: the service is not type-checked
 * against the DOM. None of them waits on a page timer, because once Chromium's virtual time
 * budget is spent the page's timers stand still until the next budget.
 */

import { WATCH_OBSERVERS } from "./observer_scripts.ts";

/**
 * Script text, run before the page's own: counts in `hints` (an object in scope with
 * `observers` and `scrollListeners`) every IntersectionObserver the page makes and every scroll,
 * wheel or resize listener it adds, the ways script-driven lazy content and reveals notice the
 * viewport. Shared by the settle's init script and the unsettled full page's lazy hints.
 */
export const WATCH_VIEWPORT_LISTENERS = `
  const Observer = window.IntersectionObserver;
  if (Observer) {
    window.IntersectionObserver = new Proxy(Observer, {
      construct(target, args, newTarget) {
        hints.observers++;
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
  const listen = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if (type === "scroll" || type === "wheel" || type === "resize") hints.scrollListeners++;
    return listen.call(this, type, ...rest);
  };`;

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
  ${WATCH_OBSERVERS}
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
    seen: observers.seen,
    straddling: observers.straddling,
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
 * The one lazy-image step, as a function text to call inside other scripts: the images whose box
 * lies in the viewport's width and the top `bottom` CSS px load now rather than when scrolled to,
 * and the decode of each is returned, so the caller can wait for them.
 */
export const LOAD_IMAGES_SCRIPT = `(bottom) => {
  const inShot = [...document.images].filter((img) => {
    const r = img.getBoundingClientRect();
    return r.width > 0 && r.bottom > 0 && r.top < bottom && r.right > 0 && r.left < innerWidth;
  });
  for (const img of inShot) if (img.loading === "lazy") img.loading = "eager";
  return inShot.filter((img) => !img.complete || img.naturalWidth > 0)
    .map((img) => img.decode().catch(() => {}));
}`;

/**
 * Makes the lazy images inside the shot (the top `height` CSS px of the viewport) load now, and
 * resolves once they and the web fonts are decoded; the caller bounds it in wall-clock time.
 */
export const ASSETS_SCRIPT = `async (height) => {
  await Promise.all([...(${LOAD_IMAGES_SCRIPT})(height), document.fonts.ready]);
}`;

/**
 * After DOMContentLoaded: waits (at most `budget` ms) for load, makes the viewport's lazy images
 * load now (plus a scroll event for script-driven lazy loaders), and waits for those images to
 * decode and for web fonts. Whether all of it came before the budget ran out.
 */
export const LOADED_SCRIPT = `async (budget) => {
  let timer;
  const timeout = new Promise((resolve) => timer = setTimeout(() => resolve(false), budget));
  const loaded = document.readyState === "complete"
    ? Promise.resolve(true)
    : new Promise((resolve) => addEventListener("load", () => resolve(true), { once: true }));
  const inTime = await Promise.race([loaded, timeout]);
  const images = (${LOAD_IMAGES_SCRIPT})(innerHeight);
  dispatchEvent(new Event("scroll"));
  const assets = Promise.all([...images, document.fonts.ready]).then(() => true);
  const assetsInTime = await Promise.race([assets, timeout]);
  // Cleared, so the settle does not count this wait as the page's own pending timer.
  clearTimeout(timer);
  return inTime && assetsInTime;
}`;

/** Fires the events scroll-driven libraries wait for before they look at the viewport again. */
export const NUDGE_EVENTS_SCRIPT = `() => {
  dispatchEvent(new Event("scroll"));
  document.dispatchEvent(new Event("scroll"));
}`;

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
