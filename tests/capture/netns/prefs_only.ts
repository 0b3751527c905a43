/**
 * The first WebRTC layer alone, inside the namespace of netns_boundary_test.ts: the local
 * backend's browser host (profile preferences, launch flags) behind the egress proxy, one
 * context like a capture's, but WITHOUT the page lockdown, so the page keeps RTCPeerConnection.
 * Prints the contacts and what the page's WebRTC calls answered as its last stdout line.
 */
import { createBrowserHost } from "../../../lib/capture/local/browser.ts";
import { createEgressProxy } from "../../../lib/capture/network/egress_proxy.ts";
import { createLogger } from "../../../lib/log.ts";
import { positiveControl, setUpNetwork, startCanaries } from "./inner.ts";
import { CANDIDATES, STUN, turn, WEBRTC } from "./vectors.ts";

// ICE keeps trying for a while; this covers gathering, checks and TURN allocation retries.
const GATHER_MS = 4_000;

async function main() {
  setUpNetwork();
  const canaries = startCanaries();
  const positive = await positiveControl(canaries);
  const log = createLogger("error", (line) => console.error(line));
  const proxy = createEgressProxy({
    resolver: () => Promise.resolve([]),
    allowPrivateNetwork: false,
    connectTimeoutMs: 2_000,
  }, log);
  const session = proxy.openSession();
  const host = createBrowserHost({ proxyUrl: () => session.url, log, onBrowser() {} });
  let answered: unknown;
  try {
    const browser = await host.get();
    const context = await browser.createBrowserContext({
      proxyServer: session.url,
      proxyBypassList: ["<-loopback>"],
    });
    const page = await context.newPage();
    answered = await page.evaluate(
      `Promise.all([
        (${WEBRTC})(window, ${JSON.stringify([...STUN, ...turn("udp"), ...turn("tcp")])}, []),
        (${WEBRTC})(window, [], ${JSON.stringify(CANDIDATES)}),
      ])`,
    );
    await new Promise((r) => setTimeout(r, GATHER_MS));
  } finally {
    await host.close();
    proxy.close();
  }
  const contacts = canaries.take();
  canaries.close();
  console.log(JSON.stringify({ positiveControl: positive, answered, contacts }));
}

if (import.meta.main) await main();
