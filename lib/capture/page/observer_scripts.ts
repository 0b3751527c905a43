/**
 * The in-page halves that follow the page's IntersectionObservers, part of the settle's init
 * script (settle_scripts.ts): the elements each one still watches, whether they were told about
 * the current scroll position, and which watched element runs off the bottom of a screen of the
 * walked full page (scroll_shot.ts).
 */

/**
 * Script text for the init script, after WATCH_VIEWPORT_LISTENERS (which names the native
 * constructor `Observer`): wraps observe, unobserve and disconnect, and defines `observers`
 * with `seen()` and `straddling()`.
 */
export const WATCH_OBSERVERS = `
  // The elements each of the page's observers still watches (see straddling()).
  const watched = new Map();
  const natives = Observer && {
    observe: Observer.prototype.observe,
    unobserve: Observer.prototype.unobserve,
    disconnect: Observer.prototype.disconnect,
  };
  if (Observer) {
    Observer.prototype.observe = function (target) {
      if (!watched.has(this)) watched.set(this, new Set());
      watched.get(this).add(target);
      return natives.observe.call(this, target);
    };
    Observer.prototype.unobserve = function (target) {
      watched.get(this)?.delete(target);
      return natives.unobserve.call(this, target);
    };
    Observer.prototype.disconnect = function () {
      watched.delete(this);
      return natives.disconnect.call(this);
    };
  }
  // An element's top in the viewport without transforms (a reveal scaled or moved away still
  // occupies its box): the offset chain, less the document's scroll.
  const layoutTop = (el) => {
    if (!(el instanceof HTMLElement)) return el.getBoundingClientRect().top;
    let top = 0;
    for (let e = el; e; e = e.offsetParent) top += e.offsetTop;
    return top - scrollY;
  };
  const observers = {
    /**
     * Resolves once the page's intersection observers were told about the current scroll
     * position: a fresh observer's first notification is delivered in the same task as the
     * notifications of every observer computed in that rendering step, and the message after
     * it runs once that task is over. Waits on the browser's frame, however slow it is.
     */
    seen() {
      return new Promise((resolve) => {
        if (!Observer) return resolve(false);
        const probe = new Observer(() => {
          natives.disconnect.call(probe);
          const channel = new MessageChannel();
          channel.port1.onmessage = () => resolve(true);
          channel.port2.postMessage(null);
        });
        natives.observe.call(probe, document.documentElement);
      });
    },
    /**
     * The document y of the highest element one of the page's observers still watches that
     * starts inside the viewport, ends below it and fits in one screen (a reveal not yet
     * triggered there, whose threshold the next screen reaches), or null.
     */
    straddling() {
      let top = Infinity;
      for (const targets of watched.values()) {
        for (const el of targets) {
          if (!el.isConnected) continue;
          const r = el.getBoundingClientRect();
          const height = el instanceof HTMLElement ? el.offsetHeight : r.height;
          const start = Math.min(r.top, layoutTop(el));
          const end = Math.max(r.bottom, start + height);
          if (r.width > 0 && start > 0 && start < innerHeight && end > innerHeight &&
            height <= innerHeight) top = Math.min(top, start);
        }
      }
      return top === Infinity ? null : Math.floor(scrollY + top);
    },
  };`;

/**
 * Resolves once the page's IntersectionObserver callbacks for the current scroll position have
 * run (see `seen()` of the init script); without the init script, after two real frames.
 */
export const OBSERVERS_SEEN_SCRIPT = `() => window.__shotlineSettle?.seen() ??
  new Promise((resolve) =>
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))`;

/** See `straddling()` of the init script; null without it. */
export const STRADDLING_SCRIPT = `() => window.__shotlineSettle?.straddling() ?? null`;
