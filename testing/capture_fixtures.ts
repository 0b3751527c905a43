/** Pages for the real-Chromium capture tests, served on loopback, and a PNG pixel reader. */
import { inflateSync } from "node:zlib";
import { concatBytes } from "../lib/bytes.ts";
import { withTimeout } from "../lib/timeout.ts";
import { pngChunks, pngSize } from "./png.ts";

export interface PageServer {
  port: number;
  origin: string;
  /** Requests per path, and the User-Agent of the last one. */
  hits: Map<string, number>;
  lastUserAgent: string | null;
  /** Cookie header of each request to /cookie. */
  cookies: (string | null)[];
  close(): Promise<void>;
}

export type Route = (
  request: Request,
  hold: (ms?: number) => Promise<void>,
) => Response | Promise<Response>;

// Every page says how to lay out on phones, so the mobile capture is 375 CSS pixels wide.
const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width">`;

/** An HTML page with a solid background colour per scheme (light #ffffff, dark #000000). */
export function schemePage(extra = ""): string {
  return `<!doctype html><html><head>${HEAD}<style>
    html, body { margin: 0; height: 100%; background: #ffffff; }
    @media (prefers-color-scheme: dark) { html, body { background: #000000; } }
  </style></head><body>${extra}</body></html>`;
}

/** A page painted green when it runs with touch and a coarse pointer (mobile emulation), else red. */
const TOUCH_PAGE = `<!doctype html><html><head>${HEAD}</head><body style="margin:0"><script>
  const touch = matchMedia("(pointer: coarse)").matches && navigator.maxTouchPoints > 0;
  document.body.style.cssText = "margin:0;height:100vh;background:" + (touch ? "#00ff00" : "#ff0000");
</script></body></html>`;

/** A solid SVG square, for image waits. */
export function svg(color: string): Response {
  return new Response(
    `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200">` +
      `<rect width="200" height="200" fill="${color}"/></svg>`,
    { headers: { "content-type": "image/svg+xml" } },
  );
}

/** What the probe page reports when the boundary holds: every way out was blocked. */
export const PROBE_ALL_BLOCKED: Record<string, string> = {
  fetch: "blocked",
  fetchName: "blocked",
  fetchMetadata: "blocked",
  image: "blocked",
  websocket: "blocked",
  secureWebsocket: "blocked",
  worker: "blocked",
};

/**
 * A script for a page on an allowed origin that tries to reach the private server on
 * 127.0.0.1:`secret` every way a page can, then POSTs what each attempt saw to /report; every
 * attempt must come back "blocked". The trailing image is for the serving fixture to hold until
 * the report arrived, so the capture waits for it.
 */
export function probeScript(secret: number): string {
  return `<script>
  const results = {};
  const attempt = (name, run) =>
    Promise.resolve().then(run).then((v) => results[name] = v, () => results[name] = "blocked");
  const image = (src) => () => new Promise((ok, fail) => {
    const img = new Image(); img.onload = () => ok("loaded"); img.onerror = fail; img.src = src;
  });
  const socket = (url) => () => new Promise((ok, fail) => {
    const ws = new WebSocket(url); ws.onopen = () => ok("open"); ws.onerror = fail;
  });
  const worker = () => new Promise((ok, fail) => {
    const code = 'fetch("http://127.0.0.1:${secret}/worker").then(() => postMessage("reached"),' +
      ' () => postMessage("blocked"))';
    const w = new Worker(URL.createObjectURL(new Blob([code])));
    w.onmessage = (e) => e.data === "reached" ? ok("reached") : fail();
  });
  const frame = document.createElement("iframe");
  frame.src = "http://evil.test:${secret}/frame";
  document.body.append(frame);
  navigator.sendBeacon("http://127.0.0.1:${secret}/beacon", "x");
  Promise.all([
    attempt("fetch", () => fetch("http://127.0.0.1:${secret}/fetch").then((r) => "status " + r.status)),
    attempt("fetchName", () => fetch("http://evil.test:${secret}/name").then(() => "reached")),
    attempt("fetchMetadata", () => fetch("http://169.254.169.254/latest/meta-data/").then(() => "reached")),
    attempt("image", image("http://localhost:${secret}/img")),
    attempt("websocket", socket("ws://127.0.0.1:${secret}/ws")),
    attempt("secureWebsocket", socket("wss://evil.test/ws")),
    attempt("worker", worker),
  ]).then(() => fetch("/report", { method: "POST", body: JSON.stringify(results) }));
</script><img src="/after-report">`;
}

/** An HTML answer of `body`. */
export const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });

/**
 * Routes for the allowed "internet" server of a boundary test: /probe serves the probe page,
 * /report keeps what a page posts there, and /after-report holds the page's load until the report
 * arrived, so the capture sees it. `expectReport()` starts over before the next capture.
 */
export function probeSite(secret: number) {
  let report: Record<string, string> | null = null;
  let arrival = Promise.withResolvers<void>();
  const routes: Record<string, Route> = {
    "/probe": () => html(schemePage(probeScript(secret))),
    "/report": async (request) => {
      report = await request.json();
      arrival.resolve();
      return new Response("thanks");
    },
    "/after-report": async () => {
      // Bounded: a page that never reports is still shot, and the test says what is missing.
      await withTimeout(arrival.promise, 5_000, "probe report").catch(() => {});
      return new Response(null, { status: 204 });
    },
  };
  return {
    routes,
    report: () => report,
    expectReport() {
      report = null;
      arrival = Promise.withResolvers<void>();
    },
  };
}

/** Default routes: "/", "/touch", "/missing" (404 page), "/hang" (never answers), "/cookie". */
export function servePages(extra: Record<string, Route> = {}): PageServer {
  const holds = new Set<() => void>();
  const hold = (ms?: number) =>
    new Promise<void>((resolve) => {
      const done = () => (holds.delete(done), resolve());
      holds.add(done);
      if (ms !== undefined) setTimeout(done, ms);
    });
  const routes: Record<string, Route> = {
    "/": () => html(schemePage()),
    "/touch": () => html(TOUCH_PAGE),
    "/missing": () =>
      html(
        `<!doctype html><body style="margin:0;height:100vh;background:#0000ff">gone</body>`,
        404,
      ),
    "/hang": async () => (await hold(), html("too late")),
    "/cookie": () =>
      new Response(schemePage(), {
        headers: { "content-type": "text/html", "set-cookie": "session=secret; Path=/" },
      }),
    ...extra,
  };
  const server: PageServer = {
    port: 0,
    origin: "",
    hits: new Map(),
    lastUserAgent: null,
    cookies: [],
    async close() {
      for (const release of [...holds]) release();
      await http.shutdown();
    },
  };
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    server.hits.set(path, (server.hits.get(path) ?? 0) + 1);
    server.lastUserAgent = request.headers.get("user-agent");
    if (path === "/cookie") server.cookies.push(request.headers.get("cookie"));
    const route = routes[path];
    return route ? route(request, hold) : new Response("no such fixture", { status: 404 });
  });
  server.port = http.addr.port;
  server.origin = `http://127.0.0.1:${http.addr.port}`;
  return server;
}

/** Decodes an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes) to its size and pixels. */
export function decodePng(png: Uint8Array) {
  const { width, height } = pngSize(png);
  const channels = png[25] === 6 ? 4 : 3;
  const idat = pngChunks(png).filter((chunk) => chunk.type === "IDAT").map((chunk) => chunk.data);
  const raw = new Uint8Array(inflateSync(concatBytes(idat)));
  const stride = width * channels;
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x];
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
        ? a
        : Math.abs(p - b) <= Math.abs(p - c)
        ? b
        : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter];
      pixels[y * stride + x] = (value + predictor) & 0xff;
    }
  }
  /** [r, g, b] at (x, y). */
  const rgb = (x: number, y: number) =>
    Array.from(pixels.subarray((y * width + x) * channels, (y * width + x) * channels + 3));
  /** Alpha at (x, y): 255 for an RGB image. */
  const alpha = (x: number, y: number) =>
    channels === 4 ? pixels[(y * width + x) * channels + 3] : 255;
  return { width, height, pixels, rgb, alpha };
}

/**
 * Routes a probe page posts its findings to: `/report` (a JSON body) and `/after-report`, an
 * image the page includes, which answers once the report is in (5 s at most) plus `lingerMs`:
 * the page's load, hence the capture, waits for the probe.
 */
export function reportRoutes(lingerMs = 0) {
  let report: Record<string, string> | null = null;
  const reported = Promise.withResolvers<void>();
  const routes: Record<string, Route> = {
    "/report": async (request) => {
      report = await request.json();
      reported.resolve();
      return new Response("ok");
    },
    "/after-report": async () => {
      await Promise.race([reported.promise, new Promise((r) => setTimeout(r, 5_000))]);
      await new Promise((r) => setTimeout(r, lingerMs));
      return new Response(null, { status: 204 });
    },
  };
  return { routes, report: () => report };
}

/**
 * Page script: tries each WebRTC constructor and a dedicated worker's RTCDataChannel; `then` is
 * run with what it saw (constructor name to "constructed" or the error's name; `worker` is
 * "absent" where workers lack RTCDataChannel).
 */
export function webrtcProbe(then: string): string {
  return `const seen = {};
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel",
    "RTCIceCandidate"]) {
    try { new globalThis[name]({ iceServers: [] }); seen[name] = "constructed"; }
    catch (e) { seen[name] = e.name; }
  }
  const probeWorker = new Worker(URL.createObjectURL(new Blob([
    "postMessage(typeof RTCDataChannel === 'undefined' ? 'absent' : (() => {" +
    " try { new RTCDataChannel(); return 'constructed'; } catch (e) { return e.name; } })())"])));
  probeWorker.onmessage = (e) => { seen.worker = String(e.data); (${then})(seen); };`;
}

/**
 * What webrtcProbe reports under the page lockdown: every constructor throws, in the page and
 * in its dedicated worker (Chromium exposes RTCDataChannel there).
 */
export const WEBRTC_LOCKED_DOWN = {
  RTCPeerConnection: "SecurityError",
  webkitRTCPeerConnection: "SecurityError",
  RTCDataChannel: "SecurityError",
  RTCIceCandidate: "SecurityError",
  worker: "SecurityError",
};
