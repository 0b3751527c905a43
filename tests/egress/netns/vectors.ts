/**
 * The attacker's pages for the network-namespace boundary test: one page per way a captured
 * page could try to reach a forbidden address. Each page fires its attempts at once and holds
 * its load event (an image that answers late) so the attempts run during the capture.
 */

/** The "public" attacker address: the only one the service may reach. */
export const ATTACKER = "1.2.3.4";

/** Forbidden IPv4 addresses that exist (only) inside the namespace, with canaries on them. */
export const FORBIDDEN_V4 = [
  "10.0.0.1",
  "172.16.0.1",
  "192.168.0.1",
  "100.64.0.1",
  "169.254.169.254",
  "168.63.129.16",
  "100.100.100.200",
  "127.0.0.1",
];
/** Forbidden IPv6 addresses with canaries (URL form is bracketed). */
export const FORBIDDEN_V6 = ["::1", "fd00::1"];

/** TCP ports the canaries listen on; HTTP-like vectors aim at CANARY_HTTP_PORT. */
export const TCP_PORTS = [80, 443, 3478, 5000, 8080];
/** UDP ports: STUN/TURN (3478), a remote candidate's port (5000), QUIC (443). */
export const UDP_PORTS = [443, 3478, 5000];
export const CANARY_HTTP_PORT = 8080;

/** Every spelling of a forbidden host a URL may use (odd notations included). */
const HOSTS = [
  ...FORBIDDEN_V4,
  ...FORBIDDEN_V6.map((a) => `[${a}]`),
  "0.0.0.0",
  "[::ffff:7f00:1]",
  "[::ffff:10.0.0.1]",
  "2130706433",
  "0x7f.1",
  "localhost",
];
const urls = (scheme = "http", port = CANARY_HTTP_PORT, path = "/x") =>
  HOSTS.map((h) => `${scheme}://${h}:${port}${path}`);
const list = (values: string[]) => JSON.stringify(values);

// Tries each URL with `body` (a JS function of `u`), never letting one failure stop the rest.
const each = (values: string[], body: string) =>
  `for (const u of ${list(values)}) { try { ${body} } catch (e) {} }`;

export const STUN = [...FORBIDDEN_V4, ATTACKER].map((a) => `stun:${a}:3478`);
export const turn = (transport: string) =>
  [...FORBIDDEN_V4, ATTACKER].map((a) => `turn:${a}:3478?transport=${transport}`);
export const CANDIDATES = [...FORBIDDEN_V4, ATTACKER].flatMap((a, i) => [
  `candidate:${i} 1 udp 2122260223 ${a} 5000 typ host`,
  `candidate:${i + 100} 1 tcp 1518280447 ${a} 5000 typ host tcptype passive`,
]);

/** The WebRTC attempt, as a function of a window (`w`): servers, and remote candidates. */
export const WEBRTC = `async (w, servers, candidates) => {
  const pc = new w.RTCPeerConnection({ iceServers: servers.map((urls) =>
    ({ urls, username: "u", credential: "p" })), iceTransportPolicy: "all" });
  pc.createDataChannel("x");
  await pc.setLocalDescription(await pc.createOffer());
  if (candidates.length > 0) {
    const answer = pc.localDescription.sdp.replace("a=setup:actpass", "a=setup:active");
    await pc.setRemoteDescription({ type: "answer", sdp: answer });
    for (const candidate of candidates) {
      await pc.addIceCandidate({ candidate, sdpMid: "0", sdpMLineIndex: 0 }).catch(() => {});
    }
  }
  return "created";
}`;
const webrtc = (servers: string[], candidates: string[] = [], window = "window") =>
  `report("webrtc", (${WEBRTC})(${window}, ${list(servers)}, ${list(candidates)}));`;

/** What each vector's page runs (script), or puts in its body (html). */
/**
 * The caller's own `scripts` (a capture option, not a page): each forbidden URL fetched and
 * awaited, then a WebSocket to each. They run as the page's own code, behind the same boundary.
 */
export const REQUEST_SCRIPTS = [
  `Promise.allSettled(${list(urls())}.map((u) => fetch(u, { mode: "no-cors" })))`,
  each(urls("ws"), "new WebSocket(u);"),
  // The attacker's own report: the scripts did run.
  `fetch("/seen/scripts", { method: "POST", body: "ran" })`,
];

export const VECTORS: Record<string, { script?: string; html?: string }> = {
  fetch: { script: each(urls(), `fetch(u, { mode: "no-cors" }).catch(() => {});`) },
  xhr: { script: each(urls(), `const x = new XMLHttpRequest(); x.open("GET", u); x.send();`) },
  img: { html: urls().map((u) => `<img src="${u}">`).join("") },
  iframe: { html: urls().map((u) => `<iframe src="${u}"></iframe>`).join("") },
  css: {
    html: `<style>${
      urls().map((u, i) => `@import url("${u}?i");.c${i}{background:url("${u}")}`)
        .join("")
    }</style>` + urls().map((u) => `<link rel="stylesheet" href="${u}">`).join("") +
      HOSTS.map((_, i) => `<div class="c${i}">x</div>`).join(""),
  },
  font: {
    html: `<style>${
      urls().map((u, i) => `@font-face{font-family:f${i};src:url("${u}")}`)
        .join("")
    }</style>` + HOSTS.map((_, i) => `<p style="font-family:f${i}">x</p>`).join(""),
  },
  media: {
    html: urls().map((u) => `<video src="${u}"></video><audio src="${u}"></audio>`).join("") +
      urls().map((u) => `<object data="${u}"></object><embed src="${u}">`).join(""),
  },
  websocket: { script: each(urls("ws"), `new WebSocket(u);`) },
  websocketTls: { script: each(urls("wss", 443), `new WebSocket(u);`) },
  eventsource: { script: each(urls(), `new EventSource(u);`) },
  beacon: { script: each(urls(), `navigator.sendBeacon(u, "x");`) },
  preconnect: {
    html: urls().map((u) =>
      ["preconnect", "dns-prefetch", "prefetch", "preload", "modulepreload", "prerender"]
        .map((rel) => `<link rel="${rel}" href="${u}" as="image">`).join("")
    ).join(""),
  },
  worker: {
    script: `const code = ${
      JSON.stringify(
        each(urls(), `fetch(u).catch(() => {}); new WebSocket(u.replace("http", "ws"));`) +
          each(urls(), `importScripts(u);`),
      )
    }; new Worker(URL.createObjectURL(new Blob([code])));
    try { new SharedWorker(URL.createObjectURL(new Blob([code]))); } catch (e) {}`,
  },
  serviceWorker: {
    script: `navigator.serviceWorker.register("/sw.js").then(() => report("sw", "registered"),
      (e) => report("sw", String(e)));`,
  },
  popup: {
    script: each(urls(), `window.open(u);`) +
      `const a = document.createElement("a"); a.href = ${list(urls())}[0]; a.target = "_blank";
      document.body.append(a); a.click();
      const f = document.createElement("form"); f.action = ${list(urls())}[1]; f.target = "_blank";
      f.method = "post"; document.body.append(f); f.submit();`,
  },
  metaRefresh: { html: `<meta http-equiv="refresh" content="0;url=${urls()[0]}">` },
  navigation: { script: `setTimeout(() => location.href = ${list(urls())}[0], 100);` },
  formPost: {
    script: `const f = document.createElement("form"); f.action = ${list(urls())}[0];
      f.method = "post"; document.body.append(f); setTimeout(() => f.submit(), 100);`,
  },
  redirect: {
    script: each(urls(), `fetch("/redirect?to=" + encodeURIComponent(u), { mode: "no-cors" });`) +
      each(urls(), `new Image().src = "/redirect?to=" + encodeURIComponent(u);`),
  },
  // The favicon the service itself loads for the capture (page.faviconData), and the browser's.
  favicon: { html: `<link rel="icon" href="http://10.0.0.1:${CANARY_HTTP_PORT}/x">` },
  faviconRedirect: {
    html: `<link rel="icon" href="/redirect?to=${
      encodeURIComponent(`http://[::ffff:7f00:1]:${CANARY_HTTP_PORT}/x`)
    }">`,
  },
  faviconShortcut: {
    html: `<link rel="shortcut icon" href="http://localhost:${CANARY_HTTP_PORT}/x">`,
  },
  faviconAppleTouch: {
    html: `<link rel="apple-touch-icon" href="http://[::1]:${CANARY_HTTP_PORT}/x">`,
  },
  faviconHttps: { html: `<link rel="icon" href="https://100.100.100.200/x.png">` },
  faviconMetadata: { html: `<link rel="icon" href="http://169.254.169.254/latest/meta-data/">` },
  faviconRedirectChain: {
    html: `<link rel="icon" href="/redirect?to=${
      encodeURIComponent(
        `/redirect?to=${encodeURIComponent(`http://localhost:${CANARY_HTTP_PORT}/x`)}`,
      )
    }">`,
  },
  // No icon declared: the origin's /favicon.ico, which the attacker redirects to FALLBACK_ICON
  // (as it does for every page here that declares none).
  faviconFallback: { html: "" },
  // The attacker's own icon: the one favicon that must still arrive.
  faviconPublic: { html: `<link rel="icon" href="/icon.png">` },
  webtransport: { script: each(urls("https", 443), `new WebTransport(u).ready.catch(() => {});`) },
  webrtcStun: { script: webrtc(STUN) },
  webrtcTurnUdp: { script: webrtc(turn("udp")) },
  webrtcTurnTcp: { script: webrtc([...turn("tcp"), "turns:10.0.0.1:443?transport=tcp"]) },
  webrtcRemoteCandidates: { script: webrtc([], CANDIDATES) },
  // A fresh about:blank frame has its own, untouched globals: only the profile's WebRTC
  // preferences stand between it and the network.
  webrtcFromBlankFrame: {
    script: `const frame = document.createElement("iframe"); document.body.append(frame);
      ${webrtc([...STUN, ...turn("udp"), ...turn("tcp")], CANDIDATES, "frame.contentWindow")}`,
  },
  webrtcFromPopup: {
    script: `const w = window.open("about:blank");
      ${webrtc([...STUN, ...turn("udp")], CANDIDATES, "w")}`,
  },
};

/** Where the attacker's /favicon.ico redirects. */
export const FALLBACK_ICON = `http://172.16.0.1:${CANARY_HTTP_PORT}/favicon.ico`;

/** The html job of the report: no URL at all, only a document naming a loopback icon. */
export const HTML_ICON_JOB = `<link rel="icon" href="http://127.0.0.1:${CANARY_HTTP_PORT}/s.png">`;

/** The page of one vector: the attempts, a report of what the page saw, and a late image. */
export function vectorPage(name: string): string {
  const { script = "", html = "" } = VECTORS[name];
  return `<!doctype html><html><head><meta charset="utf-8"></head><body>
<script>
const seen = {};
const report = (key, value) => Promise.resolve(value).then((v) => seen[key] = String(v),
  (e) => seen[key] = "error: " + (e && e.name));
try { ${script} } catch (e) { seen.thrown = String(e && e.name); }
setTimeout(() => navigator.sendBeacon("/seen/${name}", JSON.stringify(seen)), 1200);
</script>${html}<img src="/hold"></body></html>`;
}

/** A service worker that tries the forbidden addresses from its own context. */
export const SERVICE_WORKER = each(urls(), `fetch(u).catch(() => {});`);
