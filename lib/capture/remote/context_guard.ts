/**
 * A remote capture behind the egress proxy (EGRESS_PROXY_URL): the context's traffic leaves
 * only through the proxy, which judges every destination. What stays here is the proxy's
 * credentials (answered through CDP's Fetch auth handling, for the page, its frames and its
 * workers) and defence in depth for what a proxy cannot see or stop.
 */
import type { BrowserContext, HTTPRequest, Page, Target } from "puppeteer-core";
import type { Logger } from "../../log.ts";
import type { ProxyCredentials } from "../network/proxy_auth.ts";

/**
 * Runs in every document before its own scripts. WebRTC sends UDP, which an HTTP proxy never
 * carries, so the constructors go; a frame's window fetched through `contentWindow` loses them
 * too before the page can use it (its initial empty document gets no new-document script).
 */
const NO_WEBRTC = `(() => {
  const names = ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCIceCandidate",
    "RTCSessionDescription"];
  const refuse = function () {
    throw new DOMException("Blocked by the capture service's network policy", "SecurityError");
  };
  const strip = (scope) => {
    for (const name of names) {
      try {
        if (name in scope) Object.defineProperty(scope, name, { value: refuse });
      } catch {}
    }
  };
  strip(globalThis);
  for (const [proto, key] of [[HTMLIFrameElement.prototype, "contentWindow"],
    [HTMLFrameElement.prototype, "contentWindow"], [HTMLObjectElement.prototype, "contentWindow"]]) {
    const original = Object.getOwnPropertyDescriptor(proto, key);
    if (!original?.get) continue;
    Object.defineProperty(proto, key, { ...original, get() {
      const win = original.get.call(this);
      try { if (win) strip(win); } catch {}
      return win;
    } });
  }
})();`;

/**
 * Sets up `page` (the capture's only page in `context`): proxy credentials, WebRTC removed, any
 * other page the context opens (window.open, target=_blank) closed, and, once the first document
 * has committed, every further navigation of the main frame refused (meta refresh, a script's
 * `location` change, a form post): the screenshot is of the checked URL or of nothing.
 */
export async function guardProxiedPage(
  context: BrowserContext,
  page: Page,
  options: { credentials: ProxyCredentials; log: Logger },
): Promise<void> {
  const { log } = options;
  const ours = page.target();
  context.on("targetcreated", (target: Target) => {
    if (target === ours || target.type() !== "page") return;
    log.debug("remote capture opened a page; closing it");
    void target.page().then((popup) => popup?.close()).catch(() => {});
  });
  let committed = false;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame() && frame.url() !== "about:blank") committed = true;
  });
  const decide = (request: HTTPRequest) => {
    const away = committed && request.isNavigationRequest() &&
      request.frame() === page.mainFrame();
    if (away) log.debug("remote capture navigated away; refused");
    // "aborted" drops the navigation without an error page, so the checked document stays.
    // The page may be gone by now (capture over, context closed): nothing left to decide.
    void (away ? request.abort("aborted") : request.continue()).catch(() => {});
  };
  page.on("request", decide);
  await Promise.all([
    page.evaluateOnNewDocument(NO_WEBRTC),
    page.authenticate(options.credentials),
    page.setRequestInterception(true),
  ]);
}
