/**
 * What a captured page may not use, removed before its own scripts run: WebRTC (UDP that no
 * proxy sees), and new windows (a popup is a fresh target outside the capture's page). Both
 * backends use it; the network boundary itself is elsewhere (egress proxy, request guard), this
 * is defence in depth.
 */
import type { Browser, Page, WebWorker } from "puppeteer-core";
import type { Logger } from "../../log.ts";

/** WebRTC's constructors: without them a page cannot open a peer connection at all. */
export const WEBRTC_GLOBALS = [
  "RTCPeerConnection",
  "webkitRTCPeerConnection",
  "RTCDataChannel",
  "RTCIceCandidate",
];

/** Options of lockdownScript: what to take away besides WebRTC and new windows. */
export interface LockdownOptions {
  /**
   * Also WebSocket, WebTransport and service workers: for the remote backend, whose request
   * interception never sees them.
   */
  uninterceptedChannels?: boolean;
}

/** Runs in every document and worker of the page before its own scripts. */
export function lockdownScript(options: LockdownOptions = {}): string {
  const names = [...WEBRTC_GLOBALS, ...(options.uninterceptedChannels ? CHANNELS : [])];
  return `(() => {
  const refuse = function () {
    throw new DOMException("Blocked by the capture service's network policy", "SecurityError");
  };
  for (const name of ${JSON.stringify(names)}) {
    if (name in globalThis) {
      Object.defineProperty(globalThis, name, { value: refuse, writable: false, configurable: false });
    }
  }
  ${options.uninterceptedChannels ? NO_SERVICE_WORKERS : ""}
  if (typeof document === "object") (${NO_NEW_WINDOWS})();
})();`;
}

const CHANNELS = ["WebSocket", "WebTransport"];

const NO_SERVICE_WORKERS = `if (globalThis.ServiceWorkerContainer) {
    ServiceWorkerContainer.prototype.register = () =>
      Promise.reject(new DOMException("Service workers are disabled", "SecurityError"));
  }`;

// window.open, links and forms aimed at another window: stopped in the page. Targets the page
// opens anyway are closed by closeOpenedTargets.
const NO_NEW_WINDOWS = `() => {
  Object.defineProperty(window, "open", { value: () => null, writable: false, configurable: false });
  const elsewhere = (target) => {
    const base = document.querySelector("base[target]");
    const t = (target || (base && base.target) || "").toLowerCase();
    return t !== "" && t !== "_self" && t !== "_parent" && t !== "_top";
  };
  const linkOf = (node) => node && node.closest && node.closest("a[href], area[href]");
  const onClick = (event) => {
    const link = linkOf(event.composedPath()[0]);
    if (link && elsewhere(link.target)) event.preventDefault();
  };
  addEventListener("click", onClick, true);
  addEventListener("auxclick", onClick, true);
  addEventListener("submit", (event) => {
    const target = event.submitter && event.submitter.getAttribute("formtarget");
    if (elsewhere(target || event.target.target)) event.preventDefault();
  }, true);
  // A link or form outside the document never passes the window's listeners.
  const submit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function () {
    if (!elsewhere(this.target)) submit.call(this);
  };
  for (const type of [HTMLAnchorElement, HTMLAreaElement]) {
    const click = type.prototype.click;
    type.prototype.click = function () {
      if (!elsewhere(this.target)) click.call(this);
    };
  }
  const dispatch = EventTarget.prototype.dispatchEvent;
  EventTarget.prototype.dispatchEvent = function (event) {
    const link = event && /click/.test(event.type) && linkOf(this);
    if (link && elsewhere(link.target)) return false;
    return dispatch.call(this, event);
  };
}`;

/**
 * Applies the script to every frame of `page` and to each worker it starts. Workers are
 * attached paused; the script is sent before puppeteer lets them run.
 */
export async function lockDownPage(page: Page, options: LockdownOptions = {}): Promise<void> {
  const script = lockdownScript(options);
  page.on("workercreated", (worker: WebWorker) => {
    worker.client.send("Runtime.evaluate", { expression: script }).catch(() => {});
  });
  await page.evaluateOnNewDocument(script);
}

/**
 * Closes every page target opened by a page (window.open, target=_blank...) in the contexts
 * `isCapture` accepts, as soon as the browser announces it. Returns the unsubscribe function.
 */
export async function closeOpenedTargets(
  browser: Browser,
  isCapture: (contextId: string | undefined) => boolean,
  log: Logger,
): Promise<() => void> {
  const session = await browser.target().createCDPSession();
  const connection = session.connection();
  if (!connection) return () => {};
  const onCreated = (event: { targetInfo: TargetInfo }) => {
    const { type, openerId, browserContextId, targetId } = event.targetInfo;
    if ((type !== "page" && type !== "tab") || !openerId || !isCapture(browserContextId)) return;
    log.debug("closing a window opened by a captured page");
    connection.send("Target.closeTarget", { targetId }).catch(() => {});
  };
  connection.on("Target.targetCreated", onCreated);
  return () => {
    connection.off("Target.targetCreated", onCreated);
    session.detach().catch(() => {});
  };
}

interface TargetInfo {
  type: string;
  targetId: string;
  openerId?: string;
  browserContextId?: string;
}
